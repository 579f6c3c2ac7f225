/**
 * Timestamps (RFC-ACDP-0001 §5.3): registry-minted times are floored to the millisecond and written as
 * `YYYY-MM-DDTHH:MM:SS.sssZ`; producer timestamps are accepted at any precision and never rewritten.
 */

const RFC3339_UTC = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d+))?Z$/

/** Canonical millisecond form of an instant (floored: a Date holds whole milliseconds). */
export function formatTimestamp(date: Date): string {
  return new Date(Math.floor(date.getTime())).toISOString()
}

/**
 * Epoch milliseconds of an RFC 3339 UTC timestamp, sub-millisecond digits floored. Attacker-controlled input;
 * returns undefined when the text is not a valid `…Z` timestamp (including impossible dates).
 */
export function parseTimestampMs(text: string): number | undefined {
  const match = RFC3339_UTC.exec(text)
  if (!match) return undefined
  const seconds = Date.parse(`${match[1]}Z`)
  if (!Number.isFinite(seconds)) return undefined
  // Reject dates Date.parse rolls over (2026-02-30 → March 2).
  if (new Date(seconds).toISOString().slice(0, 19) !== match[1]) return undefined
  const fraction = match[2] ?? ''
  const ms = fraction === '' ? 0 : Number(fraction.slice(0, 3).padEnd(3, '0'))
  return seconds + ms
}

/** True for the exact canonical millisecond form (what RFC-ACDP-0014 §4 requires of `compromised_since`). */
export function isCanonicalTimestamp(text: string): boolean {
  return /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/.test(text) && parseTimestampMs(text) !== undefined
}
