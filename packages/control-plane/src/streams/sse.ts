/**
 * Live event streams over server-sent events (product spec "Streams (SSE)").
 *
 * Frames: `id: <event id>`, `event: <type>`, `data: <json>`, blank line. Heartbeat `event: heartbeat` with
 * `data: {"ts":…}` every STREAM_SSE_HEARTBEAT_MS; on shutdown `event: shutdown`, `retry: <ms>`,
 * `data: {"reason":"server_shutdown"}`. Heartbeats and the shutdown frame carry no `id:`, so they never move a
 * browser's Last-Event-ID.
 *
 * What the reference lacked and this hub does:
 * - Real event ids and `Last-Event-ID` resume: the stream replays stored history after that id, then switches to
 *   live without a gap or a duplicate (live events arriving during the replay are held, and dropped again when
 *   the replay itself delivers them).
 * - Bounded memory: a client's unsent bytes (Node's response + socket buffers) may not exceed `maxBufferedBytes`;
 *   a live client that falls behind further is disconnected (`acdp_sse_streams_terminated_total{reason=
 *   "slow_client"}`) and resumes from history when it reconnects with Last-Event-ID. During a replay the hub waits
 *   for `drain` instead of buffering, and events arriving meanwhile are held up to `maxPendingEvents`; past that
 *   the held events are dropped and re-read from history.
 * - Frames serialised and UTF-8 encoded once per event, not per client; clients indexed by tenant and run so an
 *   event only touches the streams that can receive it.
 * - Writes are coalesced: frames queue per client and are flushed together, one socket write per client however
 *   many frames queued, at most once per `flushIntervalMs` or the duration of the previous flush, whichever
 *   is longer (and in the next event-loop turn when the last flush is older than that). A socket write is a system call (tens of µs on a busy host): the interval caps write calls
 *   at clients / interval per second whatever the event rate, at the price of at most one interval of latency;
 *   a quiet stream still gets a lone event in the next turn. A flush round writes to FLUSH_SLICE_CLIENTS streams
 *   per event-loop turn, so other requests are served between slices.
 * - Events reach the streams through the instance's EventSequencer, in id order; a replay reads history only up to
 *   its released position, and a live event at or below a client's position is not sent again. After a
 *   cross-instance relay gap (`onGap`) the sequencer reads the missed events from the store.
 */
import type { ServerResponse } from 'node:http'
import type { ControlPlaneMetrics } from '../core/metrics.js'
import type { BusEvent, EventBus } from '../events/event-bus.js'
import { EventSequencer, SEQUENCER_DEFAULTS, type SequencerSource } from './event-sequencer.js'
import { FanoutGroup, filterKey, frameChunk } from './sse-group.js'

/** Clients written per event-loop turn by a flush round (a slice costs about a millisecond of writes). */
const FLUSH_SLICE_CLIENTS = 100

/** Stored events in stream order: the source of `Last-Event-ID` replay and of the sequencer's gap recovery. */
export interface StreamHistory extends SequencerSource {
  /**
   * Events of `tenantId` stored after the event `afterId` and up to `throughId`, in the order ids were assigned,
   * optionally only those of `runId`, at most `limit`. An unknown `afterId` yields an empty list.
   */
  readAfter(query: {
    tenantId: string
    afterId: string
    throughId?: number
    runId?: string
    limit: number
  }): Promise<BusEvent[]>
}

/** What one stream receives. */
export interface StreamSubscription {
  tenantId: string
  /** Only events of this run (per-run stream); absent for the tenant-wide stream. */
  runId?: string
  /** Only these event types; absent for all. */
  eventTypes?: ReadonlySet<string>
  /** attacker-controlled: the `Last-Event-ID` header. Replay starts after it. */
  lastEventId?: string
}

export interface SseHubOptions {
  bus: EventBus
  history: StreamHistory
  metrics: ControlPlaneMetrics
  clock: () => Date
  /** STREAM_SSE_HEARTBEAT_MS. */
  heartbeatMs: number
  /** STREAM_SSE_SHUTDOWN_RETRY_MS: the `retry:` of the shutdown frame. */
  shutdownRetryMs: number
  /** Unsent bytes one client may have queued before it counts as slow. Default 1 MiB. */
  maxBufferedBytes?: number
  /** Live events held per client while it replays history. Default 1024. */
  maxPendingEvents?: number
  /** Rows read per history query. Default 500. */
  replayPageSize?: number
  /** How long a replaying client may take to drain its buffer before it is dropped. Default 30 s. */
  drainTimeoutMs?: number
  /** Open streams allowed on this instance; further ones are refused. Default 10 000. */
  maxConnections?: number
  /** Shortest time between two flushes of queued frames. Default 50 ms; 0 = every event-loop turn. */
  flushIntervalMs?: number
  /** How long a missing event id holds back the higher ones (event-sequencer.ts). Default 1 s. */
  gapTimeoutMs?: number
  log?: { warn(object: unknown, message?: string): void }
}

/** Why a stream ended: the `reason` label of `acdp_sse_streams_terminated_total`. */
export type StreamEndReason = 'client_closed' | 'slow_client' | 'server_shutdown' | 'replay_failed'

export const SSE_DEFAULTS = {
  maxBufferedBytes: 1024 * 1024,
  maxPendingEvents: 1024,
  replayPageSize: 500,
  drainTimeoutMs: 30_000,
  maxConnections: 10_000,
  flushIntervalMs: 50,
} as const

/** One open stream. Fields are written only by the hub. */
interface StreamClient {
  readonly res: ServerResponse
  readonly tenantId: string
  readonly runId: string | undefined
  readonly eventTypes: ReadonlySet<string> | undefined
  /** The fan-out group of the stream's filter; the stream is in its `synced` or its `solo` set. */
  readonly group: FanoutGroup<StreamClient>
  /** While synced: index into the group's log of the next frame to write. */
  cursor: number
  /**
   * While solo: id of the last event queued or written: where a replay resumes. While synced the group's
   * `lastId` is the position (the field is then stale and unused).
   */
  lastEventId: string | undefined
  /** While solo: frames waiting for the next flush, and their total size. */
  queue: Buffer[]
  queuedBytes: number
  /** Non-null while replaying history: live events held until the replay ends, by id (insertion-ordered). */
  pending: Map<string, HeldEvent> | null
  /** The held events overflowed and were dropped; the replay must read history once more. */
  hasPendingOverflow: boolean
  isClosed: boolean
}

/** A released event held during a replay; `late` as the sequencer released it. */
interface HeldEvent {
  event: BusEvent
  late: boolean
}

/** Fan-out groups of one tenant: tenant-wide streams by filter key, and per-run streams by run, then key. */
interface TenantClients {
  all: Map<string, FanoutGroup<StreamClient>>
  byRun: Map<string, Map<string, FanoutGroup<StreamClient>>>
}

/** Media type and caching headers of a stream (also the answer to a HEAD request on a stream route). */
export const SSE_CONTENT_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
} as const

const HEADERS = {
  ...SSE_CONTENT_HEADERS,
  connection: 'keep-alive',
  // Reverse proxies (nginx) must not buffer a stream.
  'x-accel-buffering': 'no',
}

/**
 * Renders one event frame. `id` and `type` are attacker-influenced (ingest body): CR and LF are removed so they
 * cannot inject SSE fields; `data` is JSON text, which never contains a raw line break.
 */
export function formatEventFrame(event: Pick<BusEvent, 'id' | 'type' | 'data'>): string {
  return `id: ${stripLineBreaks(event.id)}\nevent: ${stripLineBreaks(event.type)}\ndata: ${stripLineBreaks(event.data)}\n\n`
}

function stripLineBreaks(text: string): string {
  return /[\r\n]/.test(text) ? text.replace(/[\r\n]/g, '') : text
}

/** The stream hub of one instance. Create one per app; `close()` ends every stream with the shutdown frame. */
export class SseHub {
  readonly #options: SseHubOptions
  readonly #maxBufferedBytes: number
  readonly #maxPendingEvents: number
  readonly #replayPageSize: number
  readonly #drainTimeoutMs: number
  readonly #maxConnections: number
  readonly #flushIntervalMs: number
  readonly #tenants = new Map<string, TenantClients>()
  readonly #unsubscribe: () => void
  readonly #sequencer: EventSequencer
  readonly #heartbeat: NodeJS.Timeout
  /** Solo clients with queued frames, and groups with frames appended; emptied by #flush. */
  readonly #dirty = new Set<StreamClient>()
  readonly #dirtyGroups = new Set<FanoutGroup<StreamClient>>()
  #isFlushScheduled = false
  /** performance.now() of the last flush (monotonic; only spacing flushes, never a timestamp). */
  #lastFlushAt = Number.NEGATIVE_INFINITY
  /** How long the last flush took: the next one waits at least that long (see #scheduleFlush). */
  #lastFlushDurationMs = 0
  /** Sequence number of every frame Buffer built by #frame: identifies equal solo queues for a shared concatenation. */
  readonly #frameSeq = new WeakMap<Buffer, number>()
  #nextFrameSeq = 0
  #size = 0
  #isClosed = false

  constructor(options: SseHubOptions) {
    this.#options = options
    this.#maxBufferedBytes = options.maxBufferedBytes ?? SSE_DEFAULTS.maxBufferedBytes
    this.#maxPendingEvents = options.maxPendingEvents ?? SSE_DEFAULTS.maxPendingEvents
    this.#replayPageSize = options.replayPageSize ?? SSE_DEFAULTS.replayPageSize
    this.#drainTimeoutMs = options.drainTimeoutMs ?? SSE_DEFAULTS.drainTimeoutMs
    this.#maxConnections = options.maxConnections ?? SSE_DEFAULTS.maxConnections
    this.#flushIntervalMs = options.flushIntervalMs ?? SSE_DEFAULTS.flushIntervalMs
    this.#sequencer = new EventSequencer({
      source: options.history,
      onRelease: (event, late) => this.#dispatch(event, late),
      gapTimeoutMs: options.gapTimeoutMs ?? SEQUENCER_DEFAULTS.gapTimeoutMs,
      maxHeld: SEQUENCER_DEFAULTS.maxHeld,
      ...(options.log ? { log: options.log } : {}),
    })
    this.#unsubscribe = options.bus.subscribe({
      onEvent: (event) => this.#sequencer.push(event),
      // The relay lost events: the sequencer reads them from the store and releases them in order.
      onGap: () => this.#sequencer.catchUp(),
    })
    this.#heartbeat = setInterval(() => this.#sendHeartbeat(), options.heartbeatMs)
    this.#heartbeat.unref()
  }

  /** Resolves once the hub has read its starting position; events published before are released then. */
  get ready(): Promise<void> {
    return this.#sequencer.ready
  }

  /** Open streams on this instance. */
  get size(): number {
    return this.#size
  }

  /** False when the hub is closed or full; the route then answers 503 instead of opening a stream. */
  canAccept(): boolean {
    return !this.#isClosed && this.#size < this.#maxConnections
  }

  /**
   * Takes over `res` as an event stream: writes the status and headers, registers the client and, with a
   * Last-Event-ID, starts the history replay. The caller must have hijacked the reply and checked canAccept().
   */
  open(res: ServerResponse, subscription: StreamSubscription): void {
    const client: StreamClient = {
      res,
      tenantId: subscription.tenantId,
      runId: subscription.runId,
      eventTypes: subscription.eventTypes,
      group: this.#groupFor(subscription),
      cursor: 0,
      lastEventId: subscription.lastEventId,
      queue: [],
      queuedBytes: 0,
      pending: null,
      hasPendingOverflow: false,
      isClosed: false,
    }
    res.socket?.setNoDelay(true)
    res.writeHead(200, HEADERS)
    // A comment line flushes the headers at once, so clients see the stream open before the first event.
    res.write(': stream open\n\n')
    client.group.solo.add(client)
    this.#size += 1
    this.#options.metrics.activeSseConnections.inc()
    res.on('close', () => this.#remove(client, 'client_closed'))
    if (client.lastEventId !== undefined) void this.#replay(client)
    else this.#trySync(client)
  }

  /** Ends every stream with the shutdown frame and stops the heartbeat. Idempotent. */
  close(): void {
    if (this.#isClosed) return
    this.#isClosed = true
    clearInterval(this.#heartbeat)
    this.#unsubscribe()
    this.#sequencer.close()
    const frame = `event: shutdown\nretry: ${this.#options.shutdownRetryMs}\ndata: {"reason":"server_shutdown"}\n\n`
    this.#flushAll()
    for (const tenant of [...this.#tenants.values()]) {
      for (const client of this.#clientsOf(tenant)) {
        if (!client.res.writableEnded) client.res.end(frame)
        this.#remove(client, 'server_shutdown')
      }
    }
  }

  /** The group of the subscription's filter, created on first use. */
  #groupFor(subscription: StreamSubscription): FanoutGroup<StreamClient> {
    let tenant = this.#tenants.get(subscription.tenantId)
    if (!tenant) {
      tenant = { all: new Map(), byRun: new Map() }
      this.#tenants.set(subscription.tenantId, tenant)
    }
    let groups = tenant.all
    if (subscription.runId !== undefined) {
      let run = tenant.byRun.get(subscription.runId)
      if (!run) {
        run = new Map()
        tenant.byRun.set(subscription.runId, run)
      }
      groups = run
    }
    const key = filterKey(subscription.runId, subscription.eventTypes)
    let group = groups.get(key)
    if (!group) {
      group = new FanoutGroup(key, subscription.tenantId, subscription.runId, subscription.eventTypes)
      groups.set(key, group)
    }
    return group
  }

  /**
   * Moves a solo client with nothing queued into its group's shared log when its position is the group's (or no
   * one is synced yet): from then on it costs a cursor, not a queue. Called when it opens and after each flush.
   */
  #trySync(client: StreamClient): void {
    const group = client.group
    if (client.isClosed || client.pending !== null || client.queue.length > 0) return
    if (group.synced.size > 0 && client.lastEventId !== group.lastId) return
    group.join(client, client.lastEventId)
  }

  #remove(client: StreamClient, reason: StreamEndReason): void {
    if (client.isClosed) return
    client.isClosed = true
    client.pending = null
    client.queue = []
    client.queuedBytes = 0
    this.#dirty.delete(client)
    const group = client.group
    group.synced.delete(client)
    group.solo.delete(client)
    if (group.isEmpty) this.#dropGroup(group)
    this.#size -= 1
    this.#options.metrics.activeSseConnections.dec()
    this.#options.metrics.sseStreamsTerminated.inc({ reason })
    if (reason !== 'client_closed' && reason !== 'server_shutdown') client.res.destroy()
  }

  #dropGroup(group: FanoutGroup<StreamClient>): void {
    this.#dirtyGroups.delete(group)
    const tenant = this.#tenants.get(group.tenantId)
    if (!tenant) return
    if (group.runId === undefined) tenant.all.delete(group.key)
    else {
      const run = tenant.byRun.get(group.runId)
      run?.delete(group.key)
      if (run?.size === 0) tenant.byRun.delete(group.runId)
    }
    if (tenant.all.size === 0 && tenant.byRun.size === 0) this.#tenants.delete(group.tenantId)
  }

  *#groupsOf(tenant: TenantClients): Iterable<FanoutGroup<StreamClient>> {
    yield* [...tenant.all.values()]
    for (const run of [...tenant.byRun.values()]) yield* [...run.values()]
  }

  *#clientsOf(tenant: TenantClients): Iterable<StreamClient> {
    for (const group of this.#groupsOf(tenant)) yield* [...group.synced, ...group.solo]
  }

  /**
   * Fans one released event out (in id order, except `late` ones). Work is per group, not per stream: the filter
   * is evaluated once per group, the frame rendered at most once per event (only if some stream takes it) and
   * appended once to each group's log; only solo streams are visited one by one.
   */
  #dispatch(event: BusEvent, late: boolean): void {
    const tenant = this.#tenants.get(event.tenantId)
    if (!tenant) return
    let frame: Buffer | undefined
    const id = Number(event.id)
    const deliver = (group: FanoutGroup<StreamClient>): void => {
      if (!group.accepts(event.type)) return
      for (const client of group.solo) {
        if (client.pending) {
          this.#hold(client, { event, late })
          continue
        }
        if (late) {
          this.#enqueueLate(client, event)
          continue
        }
        // Released in id order, so an id at or below the client's position was already sent (or the client
        // resumed from another instance that released it earlier).
        if (client.lastEventId !== undefined && id <= Number(client.lastEventId)) continue
        frame ??= this.#frame(formatEventFrame(event))
        this.#enqueue(client, frame, event.id)
      }
      if (group.synced.size === 0) return
      if (late) {
        // Synced streams share one position, so they share the late frame that carries it as `id:`.
        this.#appendToGroup(group, this.#frame(formatEventFrame({ ...event, id: group.lastId ?? '' })), undefined)
        return
      }
      if (group.lastId !== undefined && id <= Number(group.lastId)) return
      frame ??= this.#frame(formatEventFrame(event))
      this.#appendToGroup(group, frame, event.id)
    }
    for (const group of tenant.all.values()) deliver(group)
    if (event.runId !== null) {
      const run = tenant.byRun.get(event.runId)
      if (run) for (const group of run.values()) deliver(group)
    }
  }

  #appendToGroup(group: FanoutGroup<StreamClient>, frame: Buffer, eventId: string | undefined): void {
    group.append(frame, eventId)
    this.#dirtyGroups.add(group)
    if (!this.#isFlushScheduled) this.#scheduleFlush()
  }

  #hold(client: StreamClient, held: HeldEvent): void {
    const pending = client.pending
    if (!pending || client.hasPendingOverflow) return
    if (pending.size >= this.#maxPendingEvents) {
      // Everything held is committed, so dropping it loses nothing: the replay reads it from history again.
      pending.clear()
      client.hasPendingOverflow = true
      return
    }
    pending.set(held.event.id, held)
  }

  /**
   * Queues a live frame for a solo client's next flush, or drops the client when its unsent bytes (queued plus
   * Node's buffers) would exceed the bound.
   */
  #enqueue(client: StreamClient, frame: Buffer, eventId: string | undefined): void {
    if (client.isClosed) return
    if (client.res.writableLength + client.queuedBytes + frame.length > this.#maxBufferedBytes) {
      this.#dropSlow(client)
      return
    }
    client.queue.push(frame)
    client.queuedBytes += frame.length
    if (eventId !== undefined) client.lastEventId = eventId
    this.#dirty.add(client)
    if (!this.#isFlushScheduled) this.#scheduleFlush()
  }

  #dropSlow(client: StreamClient): void {
    this.#options.log?.warn({ tenantId: client.tenantId }, 'sse: disconnecting a slow client')
    this.#remove(client, 'slow_client')
  }

  /**
   * A late event (its id was skipped, see event-sequencer.ts) goes out with the client's current position as its
   * `id:`, so the browser's Last-Event-ID does not move back below events it has already received.
   */
  #enqueueLate(client: StreamClient, event: BusEvent): void {
    this.#enqueue(client, this.#frame(formatEventFrame({ ...event, id: client.lastEventId ?? '' })), undefined)
  }

  #scheduleFlush(): void {
    this.#isFlushScheduled = true
    // Spacing adapts to the cost of a flush: writing to thousands of sockets is mostly system calls (≈ 10 µs each
    // on a VM), and on a starved CPU a round takes longer, so flushes space out and fan-out keeps at most half of
    // the loop. A stream waits at most one round plus one spacing for a frame (frames appended during a round
    // reach the streams it has not written yet); spacing by twice the round kept the loop share at a third but
    // put p99 at 2.5-3 rounds (docs/performance/journal.md "SSE fan-out: 10,000 subscribers").
    const spacing = Math.max(this.#flushIntervalMs, this.#lastFlushDurationMs)
    const wait = this.#lastFlushAt + spacing - performance.now()
    if (wait <= 0) setImmediate(() => this.#flush())
    else setTimeout(() => this.#flush(), wait).unref()
  }

  /** Encodes a frame once; the Buffer is then shared by every group and client it is queued for. */
  #frame(text: string): Buffer {
    const buffer = Buffer.from(text, 'utf8')
    this.#nextFrameSeq += 1
    this.#frameSeq.set(buffer, this.#nextFrameSeq)
    this.#options.metrics.sseFramesEncoded.inc()
    return buffer
  }

  /**
   * Writes every queued frame, one write per client: a synced client writes its group's shared chunk (one Buffer,
   * HTTP chunk framing included, for every member at the same cursor), a solo client its own queue (solo clients
   * that queued the same frames share one concatenation too).
   *
   * A round writes to at most FLUSH_SLICE_CLIENTS clients per event-loop turn and continues in the next turn
   * (setImmediate: the loop polls sockets in between), so fanning an event out to thousands of streams never
   * holds the loop for more than one slice: other requests (a health probe, an ingest) are served between
   * slices instead of waiting for the whole round (docs/performance/journal.md "Slow clients"). A client's frames are
   * written in the order they were queued whichever slice reaches it; events arriving during a round go out to
   * the synced streams this round has not reached yet, and to the others in the next round.
   */
  #flush(): void {
    const groups = [...this.#dirtyGroups]
    this.#dirtyGroups.clear()
    const round: StreamClient[] = [...this.#dirty]
    this.#dirty.clear()
    for (const group of groups) for (const member of group.beginRound()) round.push(member)
    this.#flushSlice(round, groups, 0, new Map(), 0)
  }

  #flushSlice(
    round: StreamClient[],
    groups: FanoutGroup<StreamClient>[],
    from: number,
    shared: Map<string, Buffer>,
    busyMs: number,
  ): void {
    const startedAt = performance.now()
    const end = Math.min(round.length, from + FLUSH_SLICE_CLIENTS)
    let writes = 0
    for (let index = from; index < end; index++) {
      if (this.#flushClient(round[index] as StreamClient, shared)) writes += 1
    }
    this.#options.metrics.sseSocketWrites.inc(writes)
    const busy = busyMs + performance.now() - startedAt
    if (end < round.length && !this.#isClosed) {
      setImmediate(() => this.#flushSlice(round, groups, end, shared, busy))
      return
    }
    for (const group of groups) group.endRound()
    this.#isFlushScheduled = false
    this.#lastFlushAt = performance.now()
    this.#lastFlushDurationMs = busy
    if ((this.#dirty.size > 0 || this.#dirtyGroups.size > 0) && !this.#isClosed) this.#scheduleFlush()
  }

  /** Writes every queued frame now, in one turn (shutdown: before the final frame). */
  #flushAll(): void {
    const shared = new Map<string, Buffer>()
    for (const client of this.#dirty) this.#flushClient(client, shared)
    this.#dirty.clear()
    for (const group of this.#dirtyGroups) {
      for (const member of group.beginRound()) this.#flushClient(member, shared)
      group.endRound()
    }
    this.#dirtyGroups.clear()
  }

  /** Writes what `client` has queued (its group's chunk when synced); false when there was nothing to write. */
  #flushClient(client: StreamClient, shared?: Map<string, Buffer>): boolean {
    if (client.isClosed) return false
    if (client.group.synced.has(client)) {
      const chunked = client.res.chunkedEncoding
      const chunk = client.group.chunkFor(client, chunked)
      if (chunk === undefined) return false
      // Bytes Node still holds for this stream plus this chunk: the bound a slow reader may not exceed.
      if (client.res.writableLength + chunk.length > this.#maxBufferedBytes) {
        this.#dropSlow(client)
        return false
      }
      client.group.advance(client)
      this.#writeRaw(client, chunk)
      return true
    }
    if (client.queue.length === 0) return false
    let chunk: Buffer
    if (client.queue.length === 1) chunk = client.queue[0] as Buffer
    else {
      // Every queued frame comes from #frame, so the sequence list identifies the queue's exact bytes.
      const key = shared === undefined ? undefined : client.queue.map((frame) => this.#frameSeq.get(frame)).join(',')
      const cached = key === undefined ? undefined : shared?.get(key)
      chunk = cached ?? Buffer.concat(client.queue, client.queuedBytes)
      if (key !== undefined && cached === undefined) shared?.set(key, chunk)
    }
    client.queue = []
    client.queuedBytes = 0
    this.#writeRaw(client, client.res.chunkedEncoding ? frameChunk(chunk) : chunk)
    this.#trySync(client)
    return true
  }

  /**
   * Hands bytes straight to the stream's socket: one write call and one Buffer, where `res.write` would frame
   * the chunk itself (three buffers), cork the socket and uncork it in a later tick, per stream. On a chunked
   * response (HTTP/1.1) the bytes already carry the chunk framing it expects, on an HTTP/1.0 one they are the
   * bare frames; writes through `res` (the opening comment, replay frames, the shutdown frame) go to the same
   * socket synchronously, so order is kept. Without a socket (gone: 'close' follows) nothing is written.
   */
  #writeRaw(client: StreamClient, bytes: Buffer): void {
    const socket = client.res.socket
    if (socket === null || socket.destroyed) return
    socket.write(bytes)
  }

  #sendHeartbeat(): void {
    if (this.#size === 0) return
    const frame = this.#frame(
      `event: heartbeat\ndata: ${JSON.stringify({ ts: this.#options.clock().toISOString() })}\n\n`,
    )
    for (const tenant of [...this.#tenants.values()]) {
      for (const group of this.#groupsOf(tenant)) {
        for (const client of [...group.solo]) this.#enqueue(client, frame, undefined)
        if (group.synced.size > 0) this.#appendToGroup(group, frame, undefined)
      }
    }
  }

  /**
   * Replays stored history after `client.lastEventId`, then releases the held live events that the replay did not
   * already deliver, then goes live. Written as one loop so a relay gap or a pending overflow during the replay
   * simply means "read history once more".
   */
  async #replay(client: StreamClient): Promise<void> {
    client.pending = new Map()
    client.hasPendingOverflow = false
    try {
      // Frames queued before the replay began go out first, so the stream stays in order.
      this.#flushClient(client)
      await this.#sequencer.ready
      // The replay reads up to the released position only: above it an id may still be uncommitted, and reading
      // past it would move the client beyond an event it has not seen. Later events come from `pending`.
      let through = this.#sequencer.watermark as number
      for (;;) {
        const afterId = client.lastEventId
        if (afterId === undefined || client.isClosed) break
        through = this.#sequencer.watermark as number
        const rows = await this.#options.history.readAfter({
          tenantId: client.tenantId,
          afterId,
          throughId: through,
          ...(client.runId !== undefined ? { runId: client.runId } : {}),
          limit: this.#replayPageSize,
        })
        if (client.isClosed) return
        for (const row of rows) {
          client.pending?.delete(row.id)
          if (!client.eventTypes || client.eventTypes.has(row.type)) {
            client.res.write(formatEventFrame(row))
            if (client.res.writableLength > this.#maxBufferedBytes / 2) await this.#drain(client)
            if (client.isClosed) return
          }
          client.lastEventId = row.id
        }
        if (rows.length === this.#replayPageSize) continue
        if (client.hasPendingOverflow) {
          client.hasPendingOverflow = false
          continue
        }
        break
      }
      if (client.isClosed) return
      const held = client.pending
      client.pending = null
      // Events released before the last read committed before it, so that read delivered the ones at or below
      // `through`; late ones it did not read were removed from `held` only when it did. The ones at or below the
      // client's position were delivered before it resumed: by another instance that had released them when this
      // one had not (`through` below Last-Event-ID), as #dispatch assumes for live ones. Written again they would
      // repeat, with an `id:` below the stream's last one.
      if (held) {
        const position = Math.max(through, Number(client.lastEventId))
        for (const { event, late } of held.values()) {
          if (late) this.#enqueueLate(client, event)
          else if (Number(event.id) > position) this.#enqueue(client, this.#frame(formatEventFrame(event)), event.id)
        }
      }
      this.#trySync(client)
    } catch (error) {
      this.#options.log?.warn({ err: error, tenantId: client.tenantId }, 'sse: history replay failed')
      this.#remove(client, 'replay_failed')
    }
  }

  /** Waits until the client's buffer drains, or drops it after drainTimeoutMs. */
  async #drain(client: StreamClient): Promise<void> {
    await new Promise<void>((resolve) => {
      const done = (): void => {
        clearTimeout(timer)
        client.res.off('drain', done)
        client.res.off('close', done)
        resolve()
      }
      const timer = setTimeout(() => {
        done()
        this.#remove(client, 'slow_client')
      }, this.#drainTimeoutMs)
      client.res.once('drain', done)
      client.res.once('close', done)
    })
  }
}
