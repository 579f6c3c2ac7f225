/**
 * The registry's webhook event bodies, built from the in-process events (registry-events.ts) in the wire shape
 * the protocol declares (`@acdp/protocol` wire/webhook-events.ts), so the type checker holds the registry to the
 * one contract the control plane validates against. ctx_ids go out in the event form `<authority>/<id>`
 * (product spec registry.md "Resources"); the dispatcher adds `event_id` and `schema_version`.
 */
import type {
  ContextPublishedWebhookEvent,
  ContextRetrievedWebhookEvent,
  RegistryWebhookEventFields,
  SearchExecutedWebhookEvent,
} from '@acdp/protocol'
import type { ContextLifecycleEvent, ContextPublishedEvent, ContextRetrievedEvent } from '../core/registry-events.js'
import { toEventCtxId } from './webhooks.js'

/** Who sends: this registry's authority and public base URL (`registry.authority`, `registry.base_url`). */
export interface WebhookOrigin {
  authority: string
  baseUrl: string
}

type Fields<T> = Omit<T, 'event_id' | 'schema_version'>

/** `context_published`: receipt members only on a registry that minted a receipt for this publish. */
export function contextPublishedBody(
  origin: WebhookOrigin,
  e: ContextPublishedEvent,
): Fields<ContextPublishedWebhookEvent> {
  return {
    type: 'context_published',
    registry_authority: origin.authority,
    registry_base_url: origin.baseUrl,
    ctx_id: toEventCtxId(e.ctx_id),
    lineage_id: e.lineage_id,
    agent_id: e.agent_id,
    context_type: e.context_type,
    visibility: e.visibility,
    version: e.version,
    created_at: e.created_at,
    derived_from: e.derived_from.map(toEventCtxId),
    ...(e.run_id === undefined ? {} : { run_id: e.run_id }),
    ...(e.registry_receipt === undefined
      ? {}
      : { key_fingerprint: e.key_fingerprint, registry_receipt: e.registry_receipt }),
  }
}

/** `context_retrieved`. */
export function contextRetrievedBody(
  origin: WebhookOrigin,
  e: ContextRetrievedEvent,
): Fields<ContextRetrievedWebhookEvent> {
  return {
    type: 'context_retrieved',
    registry_authority: origin.authority,
    ctx_id: toEventCtxId(e.ctx_id),
    requester_did: e.requester_did,
    at: e.at,
  }
}

/** `search_executed`: the normalized filters applied (`query`), the matches on the page served, the caller. */
export function searchExecutedBody(
  authority: string,
  search: { query: Record<string, string | number>; resultCount: number; requesterDid: string | null; at: string },
): Fields<SearchExecutedWebhookEvent> {
  return {
    type: 'search_executed',
    registry_authority: authority,
    query: search.query,
    result_count: search.resultCount,
    requester_did: search.requesterDid,
    at: search.at,
  }
}

/** `context_retracted` or `context_republished` (lifecycle profile), by the appended event's type. */
export function contextLifecycleBody(origin: WebhookOrigin, e: ContextLifecycleEvent): RegistryWebhookEventFields {
  return {
    type: e.event_type === 'retracted' ? 'context_retracted' : 'context_republished',
    registry_authority: origin.authority,
    ctx_id: toEventCtxId(e.ctx_id),
    lineage_id: e.lineage_id,
    actor: e.actor,
    lifecycle_event_id: e.lifecycle_event_id,
    ...(e.reason === undefined ? {} : { reason: e.reason }),
    at: e.at,
  }
}
