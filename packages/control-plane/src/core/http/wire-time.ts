/**
 * Timestamps on the wire: RFC 3339 UTC with milliseconds (`2026-01-15T12:00:00.000Z`), produced from the
 * store's epoch milliseconds, so every timestamp has one form whatever the database's text of it.
 */

const DAY_MS = 86_400_000

// The UTC day of the last timestamp formatted through Date: its start (epoch ms) and its `YYYY-MM-DDT` text.
let cachedDayStart = Number.NaN
let cachedDayPrefix = ''

/**
 * Epoch ms → `YYYY-MM-DDTHH:MM:SS.mmmZ`, exactly as `Date#toISOString`.
 *
 * Why not just toISOString: list pages format two or three timestamps per row (≈ 150 per page of runs) and a
 * `Date` plus toISOString costs ≈ 500 ns each; the time of day is arithmetic, so within the cached day (nearly
 * every call: stored times cluster) a timestamp costs ≈ 75 ns. Years outside 0000–9999 (toISOString's expanded
 * form) and non-integers always go through Date, as does an invalid time (which throws, as before).
 */
export function formatTimestamp(epochMs: number): string {
  const msOfDay = epochMs - cachedDayStart
  if (msOfDay >= 0 && msOfDay < DAY_MS && Number.isInteger(epochMs)) {
    const ms = msOfDay % 1000
    const seconds = Math.floor(msOfDay / 1000)
    return `${cachedDayPrefix}${twoDigits(Math.floor(seconds / 3600))}:${twoDigits(Math.floor(seconds / 60) % 60)}:${twoDigits(seconds % 60)}.${ms < 10 ? '00' : ms < 100 ? '0' : ''}${ms}Z`
  }
  const text = new Date(epochMs).toISOString()
  if (text.length === 24 && Number.isInteger(epochMs)) {
    cachedDayStart = epochMs - (((epochMs % DAY_MS) + DAY_MS) % DAY_MS)
    cachedDayPrefix = text.slice(0, 11)
  }
  return text
}

function twoDigits(n: number): string {
  return n < 10 ? `0${n}` : `${n}`
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
