/**
 * Time-axis labels of the dashboard's charts. Every label carries its date: a 24 h or 7 d window crosses midnight,
 * and "09:00" alone does not say which day. Buckets of a day or more show the date only.
 */
const DAY_MS = 86_400_000

export function axisLabel(iso: string, bucketMs: number, locale?: string): string {
  const date = new Date(iso)
  if (Number.isNaN(date.getTime())) return iso
  return bucketMs >= DAY_MS
    ? date.toLocaleDateString(locale, { year: 'numeric', month: 'short', day: 'numeric' })
    : date.toLocaleString(locale, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' })
}
