/**
 * The event bus: how a committed event reaches the live streams (SSE) and the webhook dispatcher of every
 * instance (ARCHITECTURE "Scaling out"). On SQLite there is one process, so the bus is in-process
 * ({@link createMemoryEventBus}); on PostgreSQL every instance also relays through LISTEN/NOTIFY
 * (`event-bus-postgres.ts`), so an event ingested on instance A reaches an SSE client connected to instance B.
 *
 * The bus carries events that are already committed: a listener that misses one (slow client, lost NOTIFY
 * connection) can always re-read it from the stored history, which is why `onGap` exists.
 */

/**
 * One committed event as the bus carries it. `data` is the broadcast JSON (the stream event:
 * `{type, ts, runId, …}`) serialised ONCE by the publisher; SSE frames and webhook bodies embed it verbatim.
 */
export interface BusEvent {
  /** Stored event id. Opaque to the bus; the SSE `id:` field and the `Last-Event-ID` resume key. */
  readonly id: string
  readonly tenantId: string
  /** Run the event belongs to, or null. Per-run streams filter on it. */
  readonly runId: string | null
  /** Event type (`context_published`…), the SSE `event:` field. */
  readonly type: string
  /** JSON text of the broadcast object. */
  readonly data: string
}

/** Receives bus traffic. Callbacks run synchronously on the publishing tick and must not throw. */
export interface EventBusListener {
  /** A committed event, on this instance or relayed from another one. */
  onEvent(event: BusEvent): void
  /**
   * Events may have been missed (the cross-instance relay was down and has reconnected). Listeners that must not
   * lose events re-read the stored history from their last position.
   */
  onGap?(): void
}

/** A cache-invalidation message (`topic`, `key`), delivered to every instance including the sender. */
export type InvalidationListener = (topic: string, key: string) => void

/**
 * The bus contract. `publish` and `publishInvalidation` never throw and never wait on the network: relay failures
 * are logged and counted, local listeners are called before `publish` returns, in publish order.
 */
export interface EventBus {
  readonly kind: 'memory' | 'postgres'
  /** Delivers `event` to every listener of every instance. Call after the event's transaction committed. */
  publish(event: BusEvent): void
  /** Adds a listener; returns its removal function. */
  subscribe(listener: EventBusListener): () => void
  /** Tells every instance that cached state under (`topic`, `key`) is stale. */
  publishInvalidation(topic: string, key: string): void
  /** Adds an invalidation listener (also told `('*', '*')` after a relay gap); returns its removal function. */
  onInvalidation(listener: InvalidationListener): () => void
  /** Stops relaying; pending outgoing notifications get a bounded chance to flush. Idempotent. */
  close(): Promise<void>
}

/** The listener fan-out shared by both bus kinds. A throwing listener is logged and never stops the others. */
export class BusListeners {
  readonly #events = new Set<EventBusListener>()
  readonly #invalidations = new Set<InvalidationListener>()

  constructor(private readonly onListenerError: (error: unknown) => void) {}

  subscribe(listener: EventBusListener): () => void {
    this.#events.add(listener)
    return () => this.#events.delete(listener)
  }

  onInvalidation(listener: InvalidationListener): () => void {
    this.#invalidations.add(listener)
    return () => this.#invalidations.delete(listener)
  }

  emitEvent(event: BusEvent): void {
    for (const listener of this.#events) {
      try {
        listener.onEvent(event)
      } catch (error) {
        this.onListenerError(error)
      }
    }
  }

  emitGap(): void {
    for (const listener of this.#events) {
      try {
        listener.onGap?.()
      } catch (error) {
        this.onListenerError(error)
      }
    }
    this.emitInvalidation('*', '*')
  }

  emitInvalidation(topic: string, key: string): void {
    for (const listener of this.#invalidations) {
      try {
        listener(topic, key)
      } catch (error) {
        this.onListenerError(error)
      }
    }
  }

  clear(): void {
    this.#events.clear()
    this.#invalidations.clear()
  }
}

/** Minimal logger shape (pino's, as Fastify provides it). */
export interface BusLogger {
  warn(object: unknown, message?: string): void
  error(object: unknown, message?: string): void
}

/** The single-process bus (SQLite deployments, tests): synchronous in-order delivery to local listeners. */
export function createMemoryEventBus(options: { log?: BusLogger } = {}): EventBus {
  const listeners = new BusListeners((error) => options.log?.error({ err: error }, 'event bus listener failed'))
  return {
    kind: 'memory',
    publish: (event) => listeners.emitEvent(event),
    subscribe: (listener) => listeners.subscribe(listener),
    publishInvalidation: (topic, key) => listeners.emitInvalidation(topic, key),
    onInvalidation: (listener) => listeners.onInvalidation(listener),
    async close() {
      listeners.clear()
    },
  }
}
