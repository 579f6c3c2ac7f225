/**
 * The registry's in-process event hook: what other components (the webhook dispatcher, metrics) subscribe to.
 *
 * Listeners run synchronously right after the triggering request's data is committed and before the response
 * is sent; they must not block (queue work instead). A listener that throws is logged and ignored: events never
 * fail or delay a request (product spec "Events", delivery rule 3).
 */

import type { RegistryReceipt } from '@acdp/protocol'

/** A first, successful publish (never emitted for an idempotent replay). Field names follow the wire. */
export interface ContextPublishedEvent {
  type: 'context_published'
  ctx_id: string
  lineage_id: string
  agent_id: string
  context_type: string
  visibility: 'public' | 'restricted' | 'private'
  version: number
  created_at: string
  derived_from: readonly string[]
  /** The context's tenant (`default` without tenancy); sent as X-Tenant-Id on webhooks, never in the body. */
  tenant_id: string
  /** Echo of a well-formed `X-Run-Id` request header; absent when none was sent. */
  run_id?: string
  /** RFC-ACDP-0010 §6 fingerprint of the verifying producer key; only on a receipts registry. */
  key_fingerprint?: string
  /** The receipt minted for this publish; only on a receipts registry. */
  registry_receipt?: RegistryReceipt
}

/** A successful retrieval of a context (full, body-only, or via a lineage read). */
export interface ContextRetrievedEvent {
  type: 'context_retrieved'
  ctx_id: string
  /** The authenticated reader, or null for an anonymous read. */
  requester_did: string | null
  /** The tenant of the context read (`default` without tenancy; always `default` for a foreign context). */
  tenant_id: string
  /** Registry time of the read, canonical milliseconds. */
  at: string
}

/** An accepted lifecycle event (RFC-ACDP-0013): never emitted for an idempotent retry. */
export interface ContextLifecycleEvent {
  type: 'context_lifecycle'
  event_type: 'retracted' | 'republished'
  ctx_id: string
  lineage_id: string
  /** The producer DID, or this registry's DID for a registry-initiated event. */
  actor: string
  lifecycle_event_id: string
  /** The context's tenant. */
  tenant_id: string
  reason?: string
  /** Registry time of the append, canonical milliseconds. */
  at: string
}

/**
 * Every finished `POST /contexts`: `inserted`, `idempotent_replay`, or the wire error code that refused it.
 * The metrics counter `acdp_registry_publish_total{outcome}` is fed from this.
 */
export interface PublishOutcomeEvent {
  type: 'publish_outcome'
  outcome: string
}

export type RegistryEvent = ContextPublishedEvent | ContextRetrievedEvent | ContextLifecycleEvent | PublishOutcomeEvent
export type RegistryEventType = RegistryEvent['type']
type EventOf<T extends RegistryEventType> = Extract<RegistryEvent, { type: T }>
type Listener<T extends RegistryEventType> = (event: EventOf<T>) => void
type AnyListener = (event: RegistryEvent) => void

/** Where a failing listener is reported. */
export interface EventErrorLog {
  error(object: Record<string, unknown>, message: string): void
}

/**
 * A tiny typed publish/subscribe bus. Safe to share across requests; `on` returns an unsubscribe function.
 */
export class RegistryEvents {
  readonly #listeners = new Map<RegistryEventType, Set<AnyListener>>()
  #log: EventErrorLog | undefined

  constructor(log?: EventErrorLog) {
    this.#log = log
  }

  /** Sets where listener failures are logged (buildApp passes the app logger when none was given). */
  setErrorLog(log: EventErrorLog): void {
    this.#log ??= log
  }

  on<T extends RegistryEventType>(type: T, listener: Listener<T>): () => void {
    let set = this.#listeners.get(type)
    if (!set) {
      set = new Set()
      this.#listeners.set(type, set)
    }
    const stored = listener as unknown as AnyListener
    set.add(stored)
    return () => set.delete(stored)
  }

  /** True when someone listens for `type` (lets emitters skip building events nobody reads). */
  has(type: RegistryEventType): boolean {
    return (this.#listeners.get(type)?.size ?? 0) > 0
  }

  emit<T extends RegistryEventType>(event: EventOf<T>): void {
    const set = this.#listeners.get(event.type)
    if (!set) return
    for (const listener of set) {
      try {
        listener(event)
      } catch (error) {
        this.#log?.error({ err: error, event: event.type }, 'registry event listener failed')
      }
    }
  }
}
