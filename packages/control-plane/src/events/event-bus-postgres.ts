/**
 * The PostgreSQL event bus: local listeners are called at once, and every event is also relayed to the other
 * instances sharing the database through `NOTIFY`, received on one dedicated `LISTEN` connection per instance.
 *
 * Wire format of a notification payload (≤ {@link MAX_NOTIFY_PAYLOAD_BYTES}, PostgreSQL's limit is 8000 bytes):
 *   `{"o":"<sender instance id>","m":[<message>, …]}`, messages in publish order, where a message is
 *   `{"k":"e","e":{id,tenantId,runId,type,data}}`  a whole event, when it fits;
 *   `{"k":"r","e":{id,tenantId,runId,type}}`       a reference to a larger event, read back from the store;
 *   `{"k":"i","t":topic,"v":key}`                  a cache invalidation.
 * Several messages share one payload and several payloads one round trip, so a burst of ingests costs one NOTIFY
 * query per flush rather than one per event. A receiver ignores its own payloads (it delivered them locally).
 *
 * The channel name is derived from the connection's `current_schema()`, so deployments (and parallel test
 * suites) that share one database under different schemas never see each other's events.
 *
 * Failure handling: the LISTEN connection reconnects with capped exponential backoff, and once it is back every
 * listener gets `onGap()` (SSE clients re-read history from their last id; caches are dropped). Outgoing
 * notifications that fail are retried; the queue is bounded and overflow is counted as dropped.
 */
import type pg from 'pg'
import type { ControlPlaneMetrics } from '../core/metrics.js'
import { type BusEvent, BusListeners, type BusLogger, type EventBus } from './event-bus.js'

/** Largest payload we send; PostgreSQL refuses 8000 bytes and more. */
export const MAX_NOTIFY_PAYLOAD_BYTES = 7900
/** Outgoing messages kept while the database is unreachable; older ones are dropped (and counted) beyond this. */
const MAX_QUEUED_MESSAGES = 10_000
const RECONNECT_MIN_MS = 250
const RECONNECT_MAX_MS = 10_000
const CLOSE_FLUSH_TIMEOUT_MS = 2000

/** Identifies an event too large to travel in a notification. */
export interface BusEventRef {
  id: string
  tenantId: string
  runId: string | null
  type: string
}

export interface PostgresEventBusOptions {
  /** The instance's pool; NOTIFY goes through it. */
  pool: pg.Pool
  /** Opens the dedicated LISTEN connection. Default: a `pg.Client` with the pool's connection options. */
  connectListener?: () => Promise<pg.Client>
  /** Reads back an event relayed by reference; undefined when the row is gone (then listeners get onGap). */
  loadEvent(ref: BusEventRef): Promise<BusEvent | undefined>
  /** Distinguishes this instance's own payloads; random per process. */
  instanceId: string
  metrics?: ControlPlaneMetrics
  log?: BusLogger
}

type WireMessage = { k: 'e'; e: BusEvent } | { k: 'r'; e: BusEventRef } | { k: 'i'; t: string; v: string }

/**
 * Starts the bus: derives the channel, opens and LISTENs on the dedicated connection. Resolves once LISTEN is
 * active, so events NOTIFYed by other instances after this resolves are received.
 *
 * @throws when the first connection or LISTEN fails (the instance should not start half-connected).
 */
export async function createPostgresEventBus(options: PostgresEventBusOptions): Promise<EventBus> {
  const log = options.log
  const metrics = options.metrics
  const listeners = new BusListeners((error) => log?.error({ err: error }, 'event bus listener failed'))
  const connectListener =
    options.connectListener ??
    (async () => {
      // Imported here: an instance on SQLite never loads the PostgreSQL driver (docs/performance/journal.md "Idle memory").
      const { default: driver } = await import('pg')
      const client = new driver.Client(options.pool.options)
      await client.connect()
      return client
    })
  const channelRow = await options.pool.query<{ channel: string }>(
    "SELECT 'acdp_ev_' || left(md5(coalesce(current_schema(), '')), 16) AS channel",
  )
  const channel = channelRow.rows[0]?.channel
  if (channel === undefined || !/^acdp_ev_[0-9a-f]{16}$/.test(channel)) throw new Error('cannot derive bus channel')
  const instanceId = options.instanceId

  let isClosed = false
  let listener: pg.Client | undefined
  let reconnectTimer: NodeJS.Timeout | undefined
  let reconnectDelayMs = RECONNECT_MIN_MS

  // Incoming payloads are processed strictly one after another, so a reference that needs a store read does not
  // let later events overtake it.
  let receiveChain: Promise<void> = Promise.resolve()

  const handlePayload = async (payload: string): Promise<void> => {
    let parsed: { o?: unknown; m?: unknown }
    try {
      parsed = JSON.parse(payload)
    } catch {
      log?.warn({ channel }, 'event bus: ignoring a malformed notification')
      return
    }
    if (parsed.o === instanceId || !Array.isArray(parsed.m)) return
    for (const message of parsed.m as WireMessage[]) {
      if (message?.k === 'e' && isBusEvent(message.e)) {
        metrics?.eventBusNotifications.inc({ direction: 'received' })
        listeners.emitEvent(message.e)
      } else if (message?.k === 'r' && isBusEventRef(message.e)) {
        metrics?.eventBusNotifications.inc({ direction: 'received' })
        let event: BusEvent | undefined
        try {
          event = await options.loadEvent(message.e)
        } catch (error) {
          log?.warn({ err: error, eventId: message.e.id }, 'event bus: cannot read back a relayed event')
        }
        if (event) listeners.emitEvent(event)
        else listeners.emitGap()
      } else if (message?.k === 'i' && typeof message.t === 'string' && typeof message.v === 'string') {
        listeners.emitInvalidation(message.t, message.v)
      }
    }
  }

  const connect = async (): Promise<void> => {
    const client = await connectListener()
    client.on('notification', (notification) => {
      if (notification.channel !== channel || notification.payload === undefined) return
      const payload = notification.payload
      receiveChain = receiveChain.then(() => handlePayload(payload))
    })
    client.on('error', (error) => {
      log?.warn({ err: error }, 'event bus: LISTEN connection failed')
      dropListener(client)
    })
    client.on('end', () => dropListener(client))
    try {
      await client.query(`LISTEN ${channel}`)
    } catch (error) {
      await client.end().catch(() => undefined)
      throw error
    }
    if (isClosed) {
      await client.end().catch(() => undefined)
      return
    }
    listener = client
  }

  const dropListener = (client: pg.Client): void => {
    if (listener !== client) return
    listener = undefined
    client.removeAllListeners('notification')
    void client.end().catch(() => undefined)
    scheduleReconnect()
  }

  const scheduleReconnect = (): void => {
    if (isClosed || reconnectTimer !== undefined) return
    const delay = reconnectDelayMs
    reconnectDelayMs = Math.min(reconnectDelayMs * 2, RECONNECT_MAX_MS)
    reconnectTimer = setTimeout(async () => {
      reconnectTimer = undefined
      try {
        await connect()
        reconnectDelayMs = RECONNECT_MIN_MS
        // Whatever other instances NOTIFYed while we were away is lost from the relay, not from the store.
        listeners.emitGap()
      } catch (error) {
        log?.warn({ err: error }, 'event bus: LISTEN reconnect failed')
        scheduleReconnect()
      }
    }, delay)
    reconnectTimer.unref()
  }

  await connect()

  // Outgoing side: messages queue up while one NOTIFY query is in flight and leave together in the next one.
  let outgoing: string[] = []
  let flushing: Promise<void> | undefined
  let retryTimer: NodeJS.Timeout | undefined

  const enqueue = (message: WireMessage): void => {
    if (isClosed) return
    let text = JSON.stringify(message)
    if (Buffer.byteLength(text) > MAX_NOTIFY_PAYLOAD_BYTES - 64 && message.k === 'e') {
      const { id, tenantId, runId, type } = message.e
      text = JSON.stringify({ k: 'r', e: { id, tenantId, runId, type } } satisfies WireMessage)
    }
    if (Buffer.byteLength(text) > MAX_NOTIFY_PAYLOAD_BYTES - 64) {
      metrics?.eventBusNotifications.inc({ direction: 'dropped' })
      log?.error({ kind: message.k }, 'event bus: message too large to relay even by reference')
      return
    }
    outgoing.push(text)
    if (outgoing.length > MAX_QUEUED_MESSAGES) {
      const dropped = outgoing.length - MAX_QUEUED_MESSAGES
      outgoing = outgoing.slice(dropped)
      metrics?.eventBusNotifications.inc({ direction: 'dropped' }, dropped)
    }
    if (flushing === undefined && retryTimer === undefined) flushing = flush()
  }

  const flush = async (): Promise<void> => {
    try {
      while (outgoing.length > 0) {
        const batch = outgoing
        outgoing = []
        const payloads = packPayloads(instanceId, batch)
        try {
          await options.pool.query(
            'SELECT pg_notify($1, p) FROM unnest($2::text[]) WITH ORDINALITY AS t(p, n) ORDER BY n',
            [channel, payloads],
          )
          metrics?.eventBusNotifications.inc({ direction: 'sent' }, batch.length)
        } catch (error) {
          log?.warn({ err: error, messages: batch.length }, 'event bus: NOTIFY failed; will retry')
          outgoing = batch.concat(outgoing)
          if (!isClosed) {
            retryTimer = setTimeout(() => {
              retryTimer = undefined
              if (flushing === undefined) flushing = flush()
            }, RECONNECT_MIN_MS)
            retryTimer.unref()
          }
          return
        }
      }
    } finally {
      flushing = undefined
    }
  }

  return {
    kind: 'postgres',
    publish(event) {
      listeners.emitEvent(event)
      enqueue({ k: 'e', e: event })
    },
    subscribe: (l) => listeners.subscribe(l),
    publishInvalidation(topic, key) {
      listeners.emitInvalidation(topic, key)
      enqueue({ k: 'i', t: topic, v: key })
    },
    onInvalidation: (l) => listeners.onInvalidation(l),
    async close() {
      if (isClosed) return
      if (flushing) await Promise.race([flushing, delay(CLOSE_FLUSH_TIMEOUT_MS)])
      isClosed = true
      if (reconnectTimer) clearTimeout(reconnectTimer)
      if (retryTimer) clearTimeout(retryTimer)
      const client = listener
      listener = undefined
      if (client) {
        client.removeAllListeners('notification')
        await client.end().catch(() => undefined)
      }
      await receiveChain.catch(() => undefined)
      listeners.clear()
    },
  }
}

/** Packs serialised messages, in order, into as few payloads under the size limit as possible. */
export function packPayloads(instanceId: string, messages: readonly string[]): string[] {
  const head = `{"o":${JSON.stringify(instanceId)},"m":[`
  const payloads: string[] = []
  let current: string[] = []
  let size = Buffer.byteLength(head) + 2
  for (const message of messages) {
    const bytes = Buffer.byteLength(message) + 1
    if (current.length > 0 && size + bytes > MAX_NOTIFY_PAYLOAD_BYTES) {
      payloads.push(`${head}${current.join(',')}]}`)
      current = []
      size = Buffer.byteLength(head) + 2
    }
    current.push(message)
    size += bytes
  }
  if (current.length > 0) payloads.push(`${head}${current.join(',')}]}`)
  return payloads
}

/** Shape check of a relayed reference; anything else on the channel is ignored. */
function isBusEventRef(value: unknown): value is BusEventRef {
  const v = value as Partial<BusEventRef> | null
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof v.id === 'string' &&
    typeof v.tenantId === 'string' &&
    typeof v.type === 'string' &&
    (v.runId === null || typeof v.runId === 'string')
  )
}

/** Shape check of a relayed event. */
function isBusEvent(value: unknown): value is BusEvent {
  return isBusEventRef(value) && typeof (value as Partial<BusEvent>).data === 'string'
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref())
}
