/**
 * Whether the inspector shows a retraction banner, and what it says: only when the registry's derived status is
 * `retracted` (a republished context is active again, RFC-ACDP-0013 §7), with the reason and time of the latest
 * `retracted` lifecycle event when the registry served its events.
 */

export interface RetractionNotice {
  at: string | null
  reason: string | null
}

const record = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {}
const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null)

export function retractionNotice(envelope: unknown): RetractionNotice | null {
  const state = record(record(envelope)['registry_state'])
  if (state['status'] !== 'retracted') return null
  const events = Array.isArray(state['lifecycle_events']) ? state['lifecycle_events'].map(record) : []
  // Events are in registry-accepted order (RFC-ACDP-0013 §4.1): the last retraction is the one in force.
  const latest = events.filter((event) => event['event_type'] === 'retracted').at(-1)
  return { at: text(latest?.['occurred_at']), reason: text(latest?.['reason']) }
}
