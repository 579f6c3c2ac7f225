/**
 * Puts the bus's events back into id order before the streams see them (docs/control-plane/streams.md
 * "Ordering and resume").
 *
 * Why: `context_events.id` is taken from the sequence when the row is inserted, not when its transaction commits,
 * and concurrent transactions (several connections, several instances) commit in any order; a relayed event also
 * reaches another instance later than that instance's own. Delivered as they come, frames are out of id order, and
 * a client resuming with `Last-Event-ID: 11` skips an id 10 that committed after it. The sequencer releases an
 * event only once every lower id has been released or given up on, so the released position (`watermark`) is
 * never ahead of an id still expected, and streams replay history only up to it.
 *
 * A missing id is waited for at most `gapTimeoutMs` after a higher id arrived. Then the store is read for the gap
 * (an event committed on an instance whose NOTIFY never came: lost relay, instance killed after its commit) and
 * whatever is still missing is skipped: PostgreSQL sequences leave permanent holes (rolled-back transactions,
 * `ON CONFLICT DO NOTHING`, a killed instance's open transactions). A skipped id that commits later after all is
 * released as `late`, once, out of order.
 */
import type { BusEvent } from '../events/event-bus.js'

/** The store reads of the sequencer; ids are store sequence ids. */
export interface SequencerSource {
  /** The highest committed id (0 when none): where the sequencer starts. */
  latestId(): Promise<number>
  /** Committed events of every tenant with `afterId < id < beforeId`, ascending, at most `limit`. */
  readRange(afterId: number, beforeId: number, limit: number): Promise<BusEvent[]>
}

export interface EventSequencerOptions {
  source: SequencerSource
  /** Receives events in id order; `late` marks an event whose id had been skipped. */
  onRelease(event: BusEvent, late: boolean): void
  /** How long a missing id holds back higher ones. */
  gapTimeoutMs: number
  /** Held events beyond which the oldest gap is resolved at once (bounds memory). */
  maxHeld: number
  log?: { warn(object: unknown, message?: string): void }
}

export const SEQUENCER_DEFAULTS = { gapTimeoutMs: 1000, maxHeld: 10_000 } as const

/** Rows read per gap-recovery query. */
const RANGE_PAGE = 1000
/** Ids recovered from the store whose bus copy may still arrive (to drop it then); older entries are forgotten. */
const MAX_RECOVERED = 10_000

interface Held {
  event: BusEvent
  /** performance.now() when it arrived: how long it has been waiting for lower ids. */
  heldAt: number
}

export class EventSequencer {
  readonly #options: EventSequencerOptions
  /** Lowest id neither released nor skipped; undefined until the starting point is read. */
  #next: number | undefined
  readonly #held = new Map<number, Held>()
  readonly #recovered = new Set<number>()
  #timer: NodeJS.Timeout | undefined
  #isResolving = false
  /** A relay gap was signalled: read everything after the watermark on the next resolution. */
  #needsCatchUp = false
  #isClosed = false
  #markReady: () => void = () => {}
  /** Resolves once the starting point is read (the watermark is defined from then on). */
  readonly ready = new Promise<void>((resolve) => {
    this.#markReady = resolve
  })

  constructor(options: EventSequencerOptions) {
    this.#options = options
    void this.#start()
  }

  /** Highest id below which every id has been released or skipped; undefined before the start. */
  get watermark(): number | undefined {
    return this.#next === undefined ? undefined : this.#next - 1
  }

  /** One event from the bus. */
  push(event: BusEvent): void {
    if (this.#isClosed) return
    const id = Number(event.id)
    if (!Number.isSafeInteger(id)) return
    if (this.#next !== undefined && id < this.#next) {
      // Below the watermark: either the bus copy of an event already recovered from the store, or a skipped id
      // whose transaction committed after the gap timeout.
      if (!this.#recovered.delete(id)) this.#options.onRelease(event, true)
      return
    }
    if (this.#held.has(id)) {
      this.#recovered.delete(id)
      return
    }
    this.#held.set(id, { event, heldAt: performance.now() })
    this.#releaseContiguous()
    if (this.#held.size > this.#options.maxHeld) void this.#resolve(true)
    else this.#arm()
  }

  /** The relay lost events: read the store after the watermark so they are released without a later event. */
  catchUp(): void {
    if (this.#isClosed) return
    this.#needsCatchUp = true
    void this.#resolve(false)
  }

  close(): void {
    this.#isClosed = true
    if (this.#timer) clearTimeout(this.#timer)
    this.#timer = undefined
    this.#held.clear()
  }

  async #start(): Promise<void> {
    let latest: number
    try {
      latest = await this.#options.source.latestId()
    } catch (error) {
      this.#options.log?.warn({ err: error }, 'sse: cannot read the latest event id; retrying')
      if (!this.#isClosed) setTimeout(() => void this.#start(), this.#options.gapTimeoutMs).unref()
      return
    }
    if (this.#isClosed) return
    // Events that arrived while the start was read are committed (the bus carries committed events only).
    const early = [...this.#held.keys()].filter((id) => id <= latest).sort((a, b) => a - b)
    for (const id of early) this.#release(id)
    this.#next = latest + 1
    this.#markReady()
    this.#releaseContiguous()
    this.#arm()
  }

  #release(id: number): void {
    const held = this.#held.get(id)
    if (!held) return
    this.#held.delete(id)
    this.#options.onRelease(held.event, false)
  }

  #releaseContiguous(): void {
    if (this.#next === undefined) return
    while (this.#held.has(this.#next)) {
      this.#release(this.#next)
      this.#next += 1
    }
  }

  /** Schedules the resolution of the oldest gap, when something is held. */
  #arm(): void {
    if (this.#timer !== undefined || this.#isResolving || this.#held.size === 0 || this.#next === undefined) return
    let oldest = Number.POSITIVE_INFINITY
    for (const held of this.#held.values()) oldest = Math.min(oldest, held.heldAt)
    const wait = Math.max(0, oldest + this.#options.gapTimeoutMs - performance.now())
    this.#timer = setTimeout(() => {
      this.#timer = undefined
      void this.#resolve(false)
    }, wait)
    this.#timer.unref()
  }

  /**
   * Reads the store for the ids missing below every event held for at least the gap timeout (or below all held
   * events when `force`), releases what it finds and skips the rest, in id order.
   */
  async #resolve(force: boolean): Promise<void> {
    if (this.#isResolving || this.#next === undefined || this.#isClosed) return
    this.#isResolving = true
    if (this.#timer) clearTimeout(this.#timer)
    this.#timer = undefined
    try {
      const cutoff = force ? Number.POSITIVE_INFINITY : performance.now() - this.#options.gapTimeoutMs
      let ripe = 0
      for (const [id, held] of this.#held) if (held.heldAt <= cutoff) ripe = Math.max(ripe, id)
      const catchUp = this.#needsCatchUp
      this.#needsCatchUp = false
      const until = catchUp ? Number.MAX_SAFE_INTEGER : ripe
      if (until >= this.#next) await this.#recover(until)
      if (this.#isClosed) return
      if (ripe >= this.#next) this.#skipThrough(ripe)
      this.#releaseContiguous()
    } catch (error) {
      this.#options.log?.warn({ err: error }, 'sse: cannot read a gap of the event sequence; retrying')
    } finally {
      this.#isResolving = false
    }
    if (!this.#isClosed) this.#arm()
  }

  /** Holds every committed event with an id in [next, before) that the bus has not delivered. */
  async #recover(before: number): Promise<void> {
    let after = (this.#next as number) - 1
    for (;;) {
      const rows = await this.#options.source.readRange(after, before, RANGE_PAGE)
      if (this.#isClosed) return
      for (const event of rows) {
        const id = Number(event.id)
        after = id
        if (id < (this.#next as number) || this.#held.has(id)) continue
        this.#held.set(id, { event, heldAt: performance.now() })
        this.#recovered.add(id)
        if (this.#recovered.size > MAX_RECOVERED) {
          this.#recovered.delete(this.#recovered.values().next().value as number)
        }
      }
      if (rows.length < RANGE_PAGE) return
    }
  }

  /** Releases every held id up to `through` in order, skipping the missing ones. */
  #skipThrough(through: number): void {
    const ids = [...this.#held.keys()].filter((id) => id <= through).sort((a, b) => a - b)
    for (const id of ids) this.#release(id)
    this.#next = Math.max(this.#next as number, through + 1)
  }
}
