/**
 * The body of the WAL checkpoint thread (started by wal-checkpointer.ts) and the policy it follows.
 *
 * Every tick it runs a PASSIVE checkpoint (never blocks anyone). PASSIVE alone cannot bound the WAL: SQLite only
 * rewinds the WAL once every frame is copied back AND no reader still reads from it, so readers whose snapshots
 * overlap (a backup tool, a second process, a long report) starve the rewind and the file grows for as long as
 * writes continue. When the file passes the threshold the thread escalates to a TRUNCATE checkpoint: it takes the
 * writer lock (writers wait, on their busy handler), waits a bounded time for readers on old snapshots to finish,
 * copies the rest and truncates the file to zero bytes. A reader holding its snapshot longer than that makes the
 * attempt give up (outcome `busy`, nothing lost: the frames stay in the WAL). Retries come after a doubling delay
 * (capped) with a doubling wait (capped), so a reader that never lets go costs writers a bounded share of time
 * instead of a stall on every tick (CheckpointPolicy).
 *
 * Under a steady writer PASSIVE alone does not bound the WAL even without readers: each PASSIVE copies every
 * frame that existed when it started, but the writer appends more while it copies and fsyncs, so the WAL is never
 * fully backfilled at the moment a writer starts a transaction — the only moment SQLite rewinds it. The file then
 * grows to the TRUNCATE threshold, and that TRUNCATE copies and truncates a large file while holding every writer
 * (≈ 50–80 ms at 1,000 publishes/s, docs/performance/journal.md). So, right after a PASSIVE, once the WAL holds more than
 * `restartThresholdBytes` of frames, the thread runs a RESTART checkpoint: it takes the writer lock, copies only
 * what was appended since the PASSIVE (milliseconds of writes), fsyncs, and waits briefly (`restartWaitMs`) for
 * readers to leave the WAL, so the next writer rewinds it. The file stays near that small size and no TRUNCATE is
 * needed. Readers that outlast the wait make it `busy`; it is then retried after a doubling delay, so overlapping
 * readers cost writers a bounded share of time, and the TRUNCATE escalation above still bounds the file.
 *
 * That RESTART is kept short (`catchUp`): more PASSIVEs first while the writer is still far ahead, a flush of the
 * database file and the WAL outside any lock, then RESTARTs that never wait for the writer lock, tried only between two of the writer's transactions, which copy and
 * sync one or two transactions' frames. The writer gate (GATE_*) lets the serving thread's writer wait for any
 * checkpoint holding the writer lock asynchronously instead of in SQLite's busy handler.
 *
 * This file must stay loadable by a bare worker thread: it imports only `node:` modules (no sibling imports), so
 * it runs both from `dist/` and, in tests, as TypeScript through Node's type stripping.
 */
import { closeSync, fdatasyncSync, openSync, statSync } from 'node:fs'
import { DatabaseSync } from 'node:sqlite'
import { isMainThread, parentPort, workerData } from 'node:worker_threads'

export type CheckpointMode = 'passive' | 'restart' | 'truncate'
export type CheckpointOutcome = 'complete' | 'partial' | 'busy' | 'error'

export const CHECKPOINT_MODES: readonly CheckpointMode[] = ['passive', 'restart', 'truncate']
export const CHECKPOINT_OUTCOMES: readonly CheckpointOutcome[] = ['complete', 'partial', 'busy', 'error']

/**
 * Slots of the shared statistics array (BigInt64, written by the worker with Atomics, read by the serving thread
 * at scrape time, so reading stats never costs a message round trip).
 */
export const STAT_WAL_BYTES = 0
export const STAT_TRUNCATE_MICROS = 1
export const STAT_RESTART_MICROS = 2
const STAT_COUNTERS = 3
export const STAT_SLOTS = STAT_COUNTERS + CHECKPOINT_MODES.length * CHECKPOINT_OUTCOMES.length

/**
 * Slots of the writer gate (Int32, shared with the serving thread): the checkpointer and the serving connection's
 * writer announce themselves there before the writer lock, so that a writer never meets a checkpoint's hold
 * inside SQLite's busy handler, which sleeps in steps (1, 2, 5, 10 … ms) and, node:sqlite being synchronous,
 * sleeps the event loop with it. Each side stores its own flag, then reads the other's (sequentially consistent
 * Atomics, so at least one of the two sees the other): the checkpointer takes the lock only when the writer is
 * outside a transaction, and the writer, seeing the checkpointer's flag, waits for it asynchronously and is woken
 * the moment the hold ends.
 */
export const GATE_CHECKPOINT = 0
export const GATE_WRITER = 1
export const GATE_SLOTS = 2

/** Index of the counter of `mode` checkpoints that ended with `outcome`. */
export function counterSlot(mode: CheckpointMode, outcome: CheckpointOutcome): number {
  return (
    STAT_COUNTERS + CHECKPOINT_MODES.indexOf(mode) * CHECKPOINT_OUTCOMES.length + CHECKPOINT_OUTCOMES.indexOf(outcome)
  )
}

export interface CheckpointPolicyOptions {
  /** WAL file size above which a TRUNCATE checkpoint is attempted. */
  truncateThresholdBytes: number
  /** Ticks between checkpoint attempts. */
  intervalMs: number
  /** How long the first TRUNCATE waits for readers (and so holds writers). */
  truncateWaitMs: number
  /** Cap of that wait, which doubles after each attempt a reader outlasted. */
  maxTruncateWaitMs: number
  /** Cap of the delay before retrying a TRUNCATE or RESTART, which doubles (from one tick) after each failure. */
  maxRetryDelayMs: number
  /** WAL content (frames since the last rewind) above which a RESTART checkpoint lets the WAL rewind. */
  restartThresholdBytes: number
  /** How long a RESTART waits for the writer lock and for readers (and so at most holds writers). */
  restartWaitMs: number
  /**
   * Time budget, per due RESTART, for catching up without holding the writer: further PASSIVEs while each still
   * copies a lot, then RESTARTs that do not wait (they take the writer lock only in a gap between transactions).
   * Only when that does not succeed within the budget does the RESTART wait (`restartWaitMs`). 0 disables it.
   */
  restartCatchUpMs: number
}

/**
 * Decides, tick by tick, whether a TRUNCATE is due and how long it may wait for readers.
 *
 * Due whenever the file is over the threshold, unless the last attempt failed and its retry delay has not run
 * out. Overlapping readers make a TRUNCATE wait about two snapshot lifetimes (the readers on old snapshots, then
 * those that started during the copy), so after a failure the wait doubles, up to `maxTruncateWaitMs`; the wait
 * that last succeeded is where the next round starts, so a steady reader pattern is not re-learnt every time.
 */
export class CheckpointPolicy {
  readonly #options: CheckpointPolicyOptions
  #retryDelayTicks = 0
  #waitTicks = 0
  #startWaitMs: number
  #waitMs: number

  constructor(options: CheckpointPolicyOptions) {
    this.#options = options
    this.#startWaitMs = options.truncateWaitMs
    this.#waitMs = options.truncateWaitMs
  }

  /** Given the WAL file size now: the time this tick's TRUNCATE may wait for readers, or undefined for none. */
  truncateWait(walBytes: number): number | undefined {
    if (this.#waitTicks > 0) {
      this.#waitTicks--
      return undefined
    }
    return walBytes > this.#options.truncateThresholdBytes ? this.#waitMs : undefined
  }

  /** Records how the TRUNCATE attempt ended. */
  afterTruncate(outcome: CheckpointOutcome): void {
    if (outcome === 'complete') {
      this.#retryDelayTicks = 0
      this.#startWaitMs = this.#waitMs
      return
    }
    const maxTicks = Math.max(1, Math.floor(this.#options.maxRetryDelayMs / this.#options.intervalMs))
    this.#retryDelayTicks = Math.min(maxTicks, Math.max(1, this.#retryDelayTicks * 2))
    this.#waitTicks = this.#retryDelayTicks
    if (outcome === 'busy') this.#waitMs = Math.min(this.#options.maxTruncateWaitMs, this.#waitMs * 2)
  }

  /** Called when the file is back under the threshold: the next round starts from the last successful wait. */
  settle(): void {
    this.#waitMs = this.#startWaitMs
  }
}

/**
 * Decides, tick by tick, whether a RESTART is due: whenever the WAL holds more than the threshold of frames,
 * unless the last attempt failed and its retry delay (doubling from one tick, capped) has not run out.
 */
export class RestartPolicy {
  readonly #thresholdBytes: number
  readonly #maxRetryTicks: number
  #retryDelayTicks = 0
  #waitTicks = 0

  constructor(options: Pick<CheckpointPolicyOptions, 'restartThresholdBytes' | 'intervalMs' | 'maxRetryDelayMs'>) {
    this.#thresholdBytes = options.restartThresholdBytes
    this.#maxRetryTicks = Math.max(1, Math.floor(options.maxRetryDelayMs / options.intervalMs))
  }

  /** Given the bytes of frames in the WAL now (since its last rewind): whether to run a RESTART this tick. */
  due(walContentBytes: number): boolean {
    if (this.#waitTicks > 0) {
      this.#waitTicks--
      return false
    }
    return walContentBytes > this.#thresholdBytes
  }

  /** Records how the RESTART attempt ended. */
  afterRestart(outcome: CheckpointOutcome): void {
    if (outcome === 'complete') {
      this.#retryDelayTicks = 0
      return
    }
    this.#retryDelayTicks = Math.min(this.#maxRetryTicks, Math.max(1, this.#retryDelayTicks * 2))
    this.#waitTicks = this.#retryDelayTicks
  }
}

/**
 * Frames a catch-up PASSIVE may still find new before the worker tries the writer lock: about a transaction or
 * two of the registry's publishes (4 KiB pages), so the RESTART that follows copies and fsyncs little.
 */
export const CATCH_UP_SMALL_FRAMES = 128

/** The row `PRAGMA wal_checkpoint(...)` returns: busy flag, WAL frames, frames copied back. */
interface CheckpointRow {
  busy: number
  log: number
  checkpointed: number
}

/** Maps a checkpoint row to an outcome. `log = -1` means the database is not in WAL mode (nothing to do). */
export function checkpointOutcome(row: CheckpointRow): CheckpointOutcome {
  if (row.busy !== 0) return 'busy'
  return row.checkpointed >= row.log ? 'complete' : 'partial'
}

export interface WorkerOptions extends CheckpointPolicyOptions {
  role: 'acdp-wal-checkpointer'
  path: string
  journalSizeLimitBytes: number
  stats: SharedArrayBuffer
  gate: SharedArrayBuffer
  /**
   * A read descriptor of the database file, owned by whoever opened the serving connection (it closes it after
   * that connection, since closing any descriptor of the file drops this process's POSIX locks on it, SQLite's
   * included). The worker only flushes through it.
   */
  databaseFd?: number
}

function walFileBytes(path: string): number {
  try {
    return statSync(`${path}-wal`).size
  } catch {
    return 0 // no WAL file (yet, or after the last connection closed)
  }
}

/**
 * Flushes a file's dirty pages to disk from this thread, outside any SQLite lock (an extra flush: durability is
 * whatever SQLite's own syncs give). Errors are ignored: the file may be gone, and SQLite syncs again anyway.
 *
 * Only for the `-wal` file: closing a descriptor of a file drops every POSIX lock this process holds on it, and
 * SQLite holds its locks on the database file (and the `-shm`), never on the `-wal`. The database file is flushed
 * through `databaseFd` instead, which stays open as long as the serving connection.
 */
function flushFile(path: string): void {
  let fd: number | undefined
  try {
    fd = openSync(path, 'r+')
    fdatasyncSync(fd)
  } catch {
    // nothing to flush, or the next SQLite sync reports the problem
  } finally {
    if (fd !== undefined) closeSync(fd)
  }
}

function runWorker(options: WorkerOptions): void {
  const port = parentPort
  if (port === null) return
  const stats = new BigInt64Array(options.stats)
  const db = new DatabaseSync(options.path)
  db.exec(`PRAGMA journal_size_limit = ${Math.trunc(options.journalSizeLimitBytes)}`)
  const pageBytes = (db.prepare('PRAGMA page_size').get() as { page_size: number }).page_size
  const statements: Record<CheckpointMode, ReturnType<DatabaseSync['prepare']>> = {
    passive: db.prepare('PRAGMA wal_checkpoint(PASSIVE)'),
    restart: db.prepare('PRAGMA wal_checkpoint(RESTART)'),
    truncate: db.prepare('PRAGMA wal_checkpoint(TRUNCATE)'),
  }
  const holdSlot: Partial<Record<CheckpointMode, number>> = {
    restart: STAT_RESTART_MICROS,
    truncate: STAT_TRUNCATE_MICROS,
  }
  const policy = new CheckpointPolicy(options)
  const restartPolicy = new RestartPolicy(options)

  // The busy timeout only matters to RESTART and TRUNCATE (PASSIVE never waits): it bounds how long they wait
  // for the writer lock and then for readers, i.e. how long writers may be held.
  let busyTimeoutMs = -1
  const setBusyTimeout = (ms: number) => {
    if (ms === busyTimeoutMs) return
    db.exec(`PRAGMA busy_timeout = ${Math.trunc(ms)}`)
    busyTimeoutMs = ms
  }

  /** Runs one checkpoint; returns its outcome and the WAL's frame count (0 when unknown). */
  const run = (mode: CheckpointMode): { outcome: CheckpointOutcome; frames: number } => {
    let outcome: CheckpointOutcome
    let frames = 0
    const started = process.hrtime.bigint()
    try {
      const row = statements[mode].get() as unknown as CheckpointRow
      outcome = checkpointOutcome(row)
      frames = Math.max(0, row.log)
    } catch {
      outcome = 'error' // SQLITE_BUSY raised as an error, or the file is going away: the next tick retries
    }
    const slot = holdSlot[mode]
    if (slot !== undefined) Atomics.add(stats, slot, (process.hrtime.bigint() - started) / 1000n)
    Atomics.add(stats, counterSlot(mode, outcome), 1n)
    return { outcome, frames }
  }

  /**
   * A RESTART with no busy timeout: when the writer is inside a transaction SQLite does not wait for its lock but
   * runs the checkpoint as a PASSIVE and reports busy, so this never holds the writer longer than it takes to copy
   * and fsync what is new. Counted as a RESTART (its time as time in RESTARTs) only when it succeeded; otherwise
   * it was a PASSIVE, or a RESTART that found a reader in the WAL after copying, counted as a PASSIVE.
   */
  const tryRestart = (lastFrames: number): { outcome: CheckpointOutcome; frames: number } => {
    setBusyTimeout(0)
    // Only while the writer is between transactions: otherwise there is no gap to rewind in, so try again later.
    if (!holdWriters(1)) return { outcome: 'busy', frames: lastFrames }
    const started = process.hrtime.bigint()
    let row: CheckpointRow
    try {
      row = statements.restart.get() as unknown as CheckpointRow
    } catch {
      Atomics.add(stats, counterSlot('passive', 'error'), 1n)
      return { outcome: 'error', frames: 0 }
    } finally {
      releaseWriters()
    }
    const outcome = checkpointOutcome(row)
    if (outcome === 'complete') {
      Atomics.add(stats, STAT_RESTART_MICROS, (process.hrtime.bigint() - started) / 1000n)
      Atomics.add(stats, counterSlot('restart', 'complete'), 1n)
    } else {
      Atomics.add(stats, counterSlot('passive', row.checkpointed >= row.log ? 'complete' : 'partial'), 1n)
    }
    return { outcome, frames: Math.max(0, row.log) }
  }

  const gate = new Int32Array(options.gate)
  /**
   * Raises the checkpoint flag once no gated writer is inside a transaction (waiting at most `waitMs` for it to
   * leave one); returns whether it did. Until `releaseWriters`, gated writers do not begin transactions.
   */
  const holdWriters = (waitMs: number): boolean => {
    const deadline = performance.now() + waitMs
    for (;;) {
      Atomics.store(gate, GATE_CHECKPOINT, 1)
      if (Atomics.load(gate, GATE_WRITER) === 0) return true
      Atomics.store(gate, GATE_CHECKPOINT, 0)
      Atomics.notify(gate, GATE_CHECKPOINT)
      const left = deadline - performance.now()
      if (left <= 0) return false
      Atomics.wait(gate, GATE_WRITER, 1, Math.min(left, 5))
    }
  }
  const releaseWriters = () => {
    Atomics.store(gate, GATE_CHECKPOINT, 0)
    Atomics.notify(gate, GATE_CHECKPOINT)
  }
  /** A checkpoint that takes the writer lock, run while gated writers stand aside (or, failing that, without). */
  const runHolding = (mode: CheckpointMode, writerWaitMs: number) => {
    const held = holdWriters(writerWaitMs)
    try {
      return run(mode)
    } finally {
      if (held) releaseWriters()
    }
  }

  const pause = new Int32Array(new SharedArrayBuffer(4))
  /**
   * Lets the WAL rewind with as short a writer hold as it can, after the tick's PASSIVE found it due. That PASSIVE
   * took tens of milliseconds at a high write rate and the writer kept appending, so a RESTART straight after
   * would copy and fsync all of that under the writer lock. Instead: PASSIVEs again while each still finds more
   * than a transaction or two of new frames (each copies only what came during the previous one); then RESTARTs
   * that take the writer lock only if it is free, which then copy almost nothing. Either way ends early if the
   * writer rewound the WAL itself (a PASSIVE caught up before its next transaction). Returns the outcome, or
   * undefined when the budget ran out without success (the caller then runs a waiting RESTART).
   */
  const catchUp = (firstFrames: number): CheckpointOutcome | undefined => {
    const deadline = performance.now() + options.restartCatchUpMs
    let frames = firstFrames
    while (performance.now() < deadline) {
      const next = run('passive')
      if (next.outcome !== 'complete') return undefined // a reader pins frames: only a waiting RESTART helps
      if (next.frames < frames) return 'complete' // the writer rewound the WAL
      const grew = next.frames - frames
      frames = next.frames
      if (grew <= CATCH_UP_SMALL_FRAMES) break
    }
    // The PASSIVEs wrote this tick's pages to the database file, but SQLite syncs it only when a checkpoint ends
    // fully caught up, which under a steady writer is the RESTART below, under the writer lock: it would flush
    // them all there (≈ 10–20 MB, 5–15 ms measured). Flushed here, with no lock held, that RESTART's syncs
    // (WAL, then database) are left only what came since.
    if (options.databaseFd !== undefined) {
      try {
        fdatasyncSync(options.databaseFd)
      } catch {
        // SQLite's own sync in the RESTART reports any real problem
      }
    }
    flushFile(`${options.path}-wal`)
    while (performance.now() < deadline) {
      const attempt = tryRestart(frames)
      if (attempt.outcome === 'complete' || attempt.frames < frames) return 'complete'
      if (attempt.outcome === 'error') return undefined
      frames = attempt.frames
      // The writer is inside a transaction (or a reader is in the WAL): retry shortly, without spinning on a CPU
      // the writer needs.
      Atomics.wait(pause, 0, 0, 0.25)
    }
    return undefined
  }

  const tick = () => {
    // PASSIVE first: it copies what it can without locks, leaving RESTART and TRUNCATE (which hold writers) only
    // what was appended since.
    const passive = run('passive')
    if (restartPolicy.due(passive.frames * pageBytes)) {
      // A reader pinning frames (partial) leaves nothing to catch up to: straight to the waiting RESTART.
      let outcome = options.restartCatchUpMs > 0 && passive.outcome === 'complete' ? catchUp(passive.frames) : undefined
      if (outcome === undefined) {
        setBusyTimeout(options.restartWaitMs)
        outcome = runHolding('restart', options.restartWaitMs).outcome
      }
      restartPolicy.afterRestart(outcome)
    }
    const waitMs = policy.truncateWait(walFileBytes(options.path))
    if (waitMs !== undefined) {
      setBusyTimeout(waitMs)
      policy.afterTruncate(runHolding('truncate', waitMs).outcome)
    }
    const walBytes = walFileBytes(options.path)
    if (walBytes <= options.truncateThresholdBytes) policy.settle()
    Atomics.store(stats, STAT_WAL_BYTES, BigInt(walBytes))
  }
  tick()
  const timer = setInterval(tick, options.intervalMs)
  port.on('message', (message) => {
    if (message !== 'stop') return
    clearInterval(timer)
    run('passive')
    db.close()
    port.postMessage('stopped')
  })
  port.postMessage('ready')
}

const data = workerData as Partial<WorkerOptions> | null
if (!isMainThread && data?.role === 'acdp-wal-checkpointer') runWorker(data as WorkerOptions)
