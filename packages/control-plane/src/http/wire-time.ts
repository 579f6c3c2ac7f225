/**
 * Timestamps on the wire: RFC 3339 UTC with milliseconds (`2026-01-15T12:00:00.000Z`), produced from the
 * store's epoch milliseconds. Fixes the reference's database-text timestamps (control-plane digest E8).
 */

/** Epoch ms → `YYYY-MM-DDTHH:MM:SS.mmmZ`. */
export function formatTimestamp(epochMs: number): string {
  return new Date(epochMs).toISOString()
}

/** As {@link formatTimestamp}, passing null through. */
export function formatOptionalTimestamp(epochMs: number | null): string | null {
  return epochMs === null ? null : formatTimestamp(epochMs)
}

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-](\d{2}):(\d{2}))$/

/**
 * Parses an RFC 3339 date-time (any offset, optional fraction; sub-millisecond digits truncated) to epoch ms.
 *
 * @param text attacker-controlled.
 * @returns epoch ms, or undefined when `text` is not a valid RFC 3339 date-time (including impossible dates
 *   such as February 30, which `Date.parse` would roll over).
 */
export function parseTimestamp(text: string): number | undefined {
  if (text.length > 40) return undefined
  const m = RFC3339.exec(text)
  if (m === null) return undefined
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ]
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 60) return undefined
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate()
  if (day > daysInMonth) return undefined
  const ms = Date.parse(text.toUpperCase().replace(/(\.\d{3})\d+/, '$1'))
  return Number.isFinite(ms) ? ms : undefined
}
