/**
 * Connects the registry's in-process events (services/registry-events.ts) to the webhook dispatcher
 * (product spec registry.md "Events": a first publish emits context_published, a retrieval context_retrieved;
 * idempotent replays emit nothing — the publish service never raises `context_published` for them).
 * `search_executed` is emitted by the search service itself.
 */
import type { RegistryEvents } from './registry-events.js'
import { toEventCtxId, type WebhookDispatcher } from './webhooks.js'

/** Registry identity stamped on every event. */
export interface WebhookEventSettings {
  /** `registry.authority`. */
  registryAuthority: string
  /** `registry.base_url`, already expanded. */
  registryBaseUrl: string
}

/**
 * Subscribes `dispatcher` to the publish and retrieval events of `events`. Returns the unsubscribe function.
 * Listeners only build a small object and queue it, so they never delay the request.
 */
export function subscribeWebhookEvents(
  events: RegistryEvents,
  dispatcher: Pick<WebhookDispatcher, 'emit'>,
  settings: WebhookEventSettings,
): () => void {
  const offPublished = events.on('context_published', (event) => {
    dispatcher.emit({
      type: 'context_published',
      registry_authority: settings.registryAuthority,
      registry_base_url: settings.registryBaseUrl,
      ctx_id: toEventCtxId(event.ctx_id),
      lineage_id: event.lineage_id,
      agent_id: event.agent_id,
      context_type: event.context_type,
      visibility: event.visibility,
      version: event.version,
      created_at: event.created_at,
      derived_from: event.derived_from.map(toEventCtxId),
      ...(event.run_id === undefined ? {} : { run_id: event.run_id }),
    })
  })
  const offRetrieved = events.on('context_retrieved', (event) => {
    dispatcher.emit({
      type: 'context_retrieved',
      registry_authority: settings.registryAuthority,
      ctx_id: toEventCtxId(event.ctx_id),
      requester_did: event.requester_did,
      at: event.at,
    })
  })
  return () => {
    offPublished()
    offRetrieved()
  }
}
