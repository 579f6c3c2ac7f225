/**
 * A retrieval envelope around a freshly signed context, as a registry serves it (the body with its registry
 * members, then `registry_state` and any other envelope members): the inspector's unit tests verify real
 * signatures, never hand-written ones.
 */
import { buildPublishRequest, completeProducerContent, createProducerKey, type ProducerKey } from '@acdp/protocol'

export const FIXTURE_CTX_ID = 'acdp://registry.example.com/9f1d4f10-7b2a-4c3e-8d5b-2a6f81c4e9b7'

export interface SignedEnvelopeOptions {
  /** Producer content members beside the title and type (data_refs, supersedes, visibility, …). */
  content?: Record<string, unknown>
  /** Registry members of the body (ctx_id, lineage_id, version, created_at, …) over the defaults. */
  registryMembers?: Record<string, unknown>
  /** Envelope members beside `body` (registry_receipt, …); `registry_state` defaults to active. */
  envelope?: Record<string, unknown>
  key?: ProducerKey
}

export function signedEnvelope(title: string, options: SignedEnvelopeOptions = {}): Record<string, unknown> {
  const key = options.key ?? createProducerKey()
  const content = completeProducerContent({ title, type: 'analysis', ...options.content }, key)
  const body = buildPublishRequest({
    body: content,
    algorithm: key.algorithm,
    privateKey: key.privateKey,
    keyId: key.keyId,
  })
  return {
    body: {
      ...body,
      ctx_id: FIXTURE_CTX_ID,
      lineage_id: `lin:sha256:${'1'.repeat(64)}`,
      origin_registry: 'registry.example.com',
      created_at: '2026-06-12T09:00:00.000Z',
      ...options.registryMembers,
    },
    registry_state: { status: 'active' },
    ...options.envelope,
  }
}
