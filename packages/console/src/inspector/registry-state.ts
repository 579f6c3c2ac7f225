/**
 * The registry's word about a context, read from its retrieval envelope (attacker-controlled: anything malformed
 * reads as absent, never trusted): the derived status (RFC-ACDP-0004 §4.1; precedence retracted > superseded >
 * expired > active), the version and lineage from the body, when the producer created it and when the registry
 * accepted it (the receipt's `created_at`, RFC-ACDP-0010 §8 — shown with the receipt's own verdict beside it),
 * and its visibility.
 */

export interface RegistryStateView {
  status: string
  version: number | null
  lineageId: string | null
  /** The registry authority of the ctx_id, which serves the lineage. */
  authority: string | null
  createdAt: string | null
  registeredAt: string | null
  visibility: string | null
  /** The version this one replaces (`body.supersedes`). */
  supersedes: string | null
}

const record = (value: unknown): Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {}
const text = (value: unknown): string | null => (typeof value === 'string' && value !== '' ? value : null)

export function authorityOf(ctxId: string): string | null {
  return /^acdp:\/\/([^/]+)\//.exec(ctxId)?.[1] ?? null
}

export function readRegistryState(envelope: unknown): RegistryStateView {
  const root = record(envelope)
  const body = record(root['body'])
  const state = record(root['registry_state'])
  const ctxId = text(body['ctx_id'])
  return {
    status: text(state['status']) ?? 'unknown',
    version: typeof body['version'] === 'number' && Number.isInteger(body['version']) ? body['version'] : null,
    lineageId: text(body['lineage_id']),
    authority: ctxId === null ? null : authorityOf(ctxId),
    createdAt: text(body['created_at']),
    registeredAt: text(record(root['registry_receipt'])['created_at']),
    visibility: text(body['visibility']),
    supersedes: text(body['supersedes']),
  }
}
