/**
 * Readers for the deployment examples in deploy/: systemd EnvironmentFile= files and unit files, parsed the
 * way systemd reads them (for the parts the examples use).
 */

/**
 * `KEY=VALUE` lines; blank lines and `#` comments skipped. A value wholly in single quotes is taken literally
 * without them, as systemd does (the generated PEM keys use it to keep their `\n` escapes); the examples use no
 * other quoting, and a backslash outside quotes is refused rather than guessed at.
 */
export function parseEnvironmentFile(text: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const line of text.split('\n')) {
    const trimmed = line.trim()
    if (trimmed === '' || trimmed.startsWith('#')) continue
    const equals = trimmed.indexOf('=')
    if (equals <= 0) throw new Error(`not KEY=VALUE: ${trimmed}`)
    const raw = trimmed.slice(equals + 1)
    const quoted = /^'([^']*)'$/.exec(raw)
    if (quoted === null && /["'\\]/.test(raw)) throw new Error(`quoting this parser does not read: ${trimmed}`)
    out[trimmed.slice(0, equals)] = quoted === null ? raw : (quoted[1] as string)
  }
  return out
}

/** Section → key → values (a key may repeat, e.g. EnvironmentFile=). */
export function parseUnitFile(text: string): Record<string, Record<string, string[]>> {
  const sections: Record<string, Record<string, string[]>> = {}
  let current: Record<string, string[]> | undefined
  for (const line of text.split('\n')) {
    const trimmed = line.trim()
    if (trimmed === '' || trimmed.startsWith('#') || trimmed.startsWith(';')) continue
    const header = /^\[(.+)\]$/.exec(trimmed)
    if (header) {
      current = {}
      sections[header[1] as string] = current
      continue
    }
    const equals = trimmed.indexOf('=')
    if (current === undefined || equals <= 0) throw new Error(`unexpected unit line: ${trimmed}`)
    const key = trimmed.slice(0, equals)
    current[key] = [...(current[key] ?? []), trimmed.slice(equals + 1)]
  }
  return sections
}

/** Seconds of a systemd time span such as `40`, `40s` or `1min 30s`. */
export function timeSpanSeconds(span: string): number {
  let total = 0
  for (const [, value, unit] of span.matchAll(/(\d+)\s*(min|s|ms)?/g)) {
    const n = Number(value)
    total += unit === 'min' ? n * 60 : unit === 'ms' ? n / 1000 : n
  }
  return total
}
