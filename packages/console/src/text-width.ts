/**
 * An upper bound on the width of one line of SVG text, without a DOM: SVG <text> neither wraps nor clips, so the
 * DAG fits its labels to the node before drawing them. Advances are DejaVu Sans Bold's (the fallback of the
 * console's font stack where system-ui, Segoe UI and Roboto are absent, and wider than each of those), in em,
 * rounded up to the hundredth; a narrower font only leaves a little room unused.
 */

/** Printable ASCII and the DAG's own symbols by advance (DejaVu Sans Bold, measured in Chromium), in em. */
const ADVANCES: ReadonlyArray<readonly [number, string]> = [
  [0.31, "'"],
  [0.35, ' ijl'],
  [0.37, '/\\|'],
  [0.38, ',.IJ·'],
  [0.4, ':;'],
  [0.42, '-'],
  [0.44, 'f'],
  [0.46, '!()[]'],
  [0.48, 't'],
  [0.5, '_`r–'],
  [0.53, '"*'],
  [0.59, '?z'],
  [0.6, 'cs'],
  [0.64, 'L'],
  [0.65, 'x'],
  [0.66, 'vy'],
  [0.67, 'k'],
  [0.68, 'ae'],
  [0.69, 'EFTo'],
  [0.7, '0123456789$'],
  [0.72, 'bdghnpqu{}'],
  [0.73, 'SYZ'],
  [0.74, 'CP'],
  [0.77, 'B'],
  [0.78, 'AKRVX'],
  [0.82, 'U'],
  [0.83, 'G'],
  [0.84, '#+<=>DHN^~✓✗'],
  [0.86, 'OQ'],
  [0.88, '&'],
  [0.93, 'w'],
  [1, '@M…'],
  [1.01, '%'],
  [1.05, 'm'],
]
/** W, and every character not listed (other scripts, emoji): wider than any listed one. */
const WIDEST = 1.2
const ADVANCE = new Map(ADVANCES.flatMap(([em, chars]) => [...chars].map((ch) => [ch, em] as const)))

/** The width of `text` at `fontPx` pixels, bounded above. */
export function textWidth(text: string, fontPx: number): number {
  let em = 0
  for (const ch of text) em += ADVANCE.get(ch) ?? WIDEST
  return em * fontPx
}

/**
 * `text` unchanged when it fits in `maxWidth`, else its longest prefix that fits followed by an ellipsis (an empty
 * string when not even the ellipsis fits).
 */
export function truncateToWidth(text: string, maxWidth: number, fontPx: number): string {
  if (textWidth(text, fontPx) <= maxWidth) return text
  const chars = [...text]
  for (let kept = chars.length - 1; kept >= 0; kept--) {
    const candidate = `${chars.slice(0, kept).join('').trimEnd()}…`
    if (textWidth(candidate, fontPx) <= maxWidth) return candidate
  }
  return ''
}
