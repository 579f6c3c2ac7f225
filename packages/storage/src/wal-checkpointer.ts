/**
 * Moves SQLite WAL checkpoints off the serving thread and keeps the WAL file bounded.
 *
 * node:sqlite is synchronous: with automatic checkpoints, the commit that crosses the WAL threshold copies
 * pages back into the database file and fsyncs on the event loop, and every request queued behind it inherits
 * that stall. Instead the serving connection disables auto-checkpointing and a worker thread with its own
 * connection checkpoints on an interval (policy and its reasons: wal-checkpoint-worker.ts), started once the WAL
 * first holds enough to be worth it.
 */
import { stat } from 'node:fs/promises'
import { Worker } from 'node:worker_threads'
import {
  CHECKPOINT_MODES,
  CHECKPOINT_OUTCOMES,
  type CheckpointMode,
  type CheckpointOutcome,
  counterSlot,
  GATE_CHECKPOINT,
  GATE_SLOTS,
  GATE_WRITER,
  STAT_RESTART_MICROS,
  STAT_SLOTS,
  STAT_TRUNCATE_MICROS,
  STAT_WAL_BYTES,
  type WorkerOptions,
} from './wal-checkpoint-worker.js'

export type { CheckpointMode, CheckpointOutcome }

/** Default WAL size that triggers a TRUNCATE checkpoint. */
export const DEFAULT_WAL_MAX_BYTES = 64 * 1024 * 1024

/** Smallest accepted threshold: below it a TRUNCATE would run on almost every tick of a busy writer. */
export const MIN_WAL_MAX_BYTES = 1024 * 1024

export interface WalCheckpointerOptions {
  /** WAL file size above which the worker runs a TRUNCATE checkpoint. Default {@link DEFAULT_WAL_MAX_BYTES}. */
  walMaxBytes?: number
  /** Interval between checkpoints. Default 250 ms. */
  intervalMs?: number
  /** How long a first TRUNCATE waits for readers (and so holds writers). Default 200 ms. */
  truncateWaitMs?: number
  /** Cap of that wait, doubled after each attempt a reader outlasted. Default 1 s. */
  maxTruncateWaitMs?: number
  /** Cap of the doubling delay between failed TRUNCATE (or RESTART) attempts. Default 30 s. */
  maxRetryDelayMs?: number
  /**
   * WAL content (frames since the last rewind) above which a RESTART checkpoint lets the WAL rewind.
   * Default {@link defaultRestartThreshold} of `walMaxBytes`.
   */
  restartThresholdBytes?: number
  /** How long a RESTART may wait for the writer lock and for readers (so at most holds writers). Default 50 ms. */
  restartWaitMs?: number
  /**
   * Budget for letting the WAL rewind without a waiting RESTART (catch-up PASSIVEs, then RESTARTs that take the
   * writer lock only between transactions) before falling back to one. Default 40 ms; 0 disables the catch-up.
   */
  restartCatchUpMs?: number
  /** WAL size that starts the worker thread; 0 starts it at once. Default {@link DEFAULT_WORKER_START_BYTES}. */
  workerStartBytes?: number
  /**
   * A descriptor of the database file the worker may flush it through before a RESTART (shortening the RESTART's
   * own sync under the writer lock). The caller keeps it open until its SQLite connections to the file are closed.
   */
  databaseFd?: number
}

/** What the checkpoint worker has done so far; read at scrape time. */
export interface WalCheckpointStats {
  /** Size of the `-wal` file at the worker's last tick. */
  walBytes: number
  /** Checkpoints run, by mode and outcome (`partial`: a reader's snapshot kept some frames in the WAL). */
  checkpoints: Record<CheckpointMode, Record<CheckpointOutcome, number>>
  /** Total time spent in TRUNCATE checkpoints (writers wait during it), in seconds. */
  truncateSeconds: number
  /** Total time spent in RESTART checkpoints (writers wait during part of it), in seconds. */
  restartSeconds: number
  /** Whether the worker thread runs (it starts once the WAL first reaches its start size). */
  workerRunning: boolean
}

/** `Atomics.waitAsync` (Node ≥ 16), which the project's TypeScript lib (ES2022) does not declare yet. */
const waitAsync = (
  Atomics as unknown as {
    waitAsync(
      array: Int32Array,
      index: number,
      value: number,
      timeoutMs: number,
    ): { async: false; value: 'not-equal' | 'timed-out' } | { async: true; value: Promise<'ok' | 'timed-out'> }
  }
).waitAsync

/**
 * The serving connection's side of the writer gate (wal-checkpoint-worker.ts `GATE_CHECKPOINT`): a writer that
 * brackets each write transaction with `enter()` / `leave()` never meets a checkpoint's writer-lock hold in SQLite's
 * busy handler. When `enter()` returns false a checkpoint holds (or is about to hold) the lock: the caller waits
 * for `released()` instead, which resolves as soon as the checkpoint is done, with the event loop free meanwhile.
 */
export class WriterGate {
  readonly #slots: Int32Array

  constructor(buffer: SharedArrayBuffer) {
    this.#slots = new Int32Array(buffer)
  }

  /** Marks the writer as inside a transaction; false (and not marked) if a checkpoint holds the lock. */
  enter(): boolean {
    Atomics.store(this.#slots, GATE_WRITER, 1)
    if (Atomics.load(this.#slots, GATE_CHECKPOINT) === 0) return true
    this.leave()
    return false
  }

  leave(): void {
    Atomics.store(this.#slots, GATE_WRITER, 0)
    Atomics.notify(this.#slots, GATE_WRITER)
  }

  /**
   * Resolves once the checkpoint's hold ends, or after `timeoutMs` (a safety net: a gate left raised by a thread
   * that died must not stop writes; a writer that goes ahead regardless still meets SQLite's busy handler).
   * Returns false on that timeout.
   */
  async released(timeoutMs: number): Promise<boolean> {
    const wait = waitAsync(this.#slots, GATE_CHECKPOINT, 1, timeoutMs)
    return !wait.async || (await wait.value) !== 'timed-out'
  }
}

export interface WalCheckpointer {
  /** The gate the serving connection's writer may use to step aside from checkpoint holds. */
  readonly writerGate: WriterGate
  stats(): WalCheckpointStats
  /** Runs a last checkpoint, closes the worker's connection and ends the thread. */
  stop(): Promise<void>
}

/**
 * `journal_size_limit` for every connection: after the WAL rewinds, a commit trims the file to this size, so a
 * burst that grew the file does not keep it large. Half the TRUNCATE threshold: the trim is an `ftruncate` in the
 * writer's COMMIT, on the serving thread (2–13 ms measured), and the file regrows into fresh blocks after it; at
 * 1,000 registry publishes/s the file holds 20–30 MiB between rewinds, so a quarter (16 MiB) made every rewind
 * pay it (≈ 4 times a second, docs/performance/journal.md "Checkpoint holds and the p99 at 1,000/s").
 */
export function journalSizeLimit(walMaxBytes: number): number {
  return Math.max(1024 * 1024, Math.floor(walMaxBytes / 2))
}

/**
 * Default RESTART threshold: a sixteenth of the TRUNCATE threshold (4 MiB for the default 64 MiB), at least
 * 256 KiB. Small enough that the file stays well below the TRUNCATE threshold: it holds this much plus one tick
 * of writes (≈ 12–22 MiB per tick at 1,000 trust-layer publishes/s, so the file then holds 20–35 MiB, around
 * `journal_size_limit`), and RESTARTs run on almost every tick (≈ 4/s, each a short hold under the writer lock,
 * kept off the serving thread's event loop by the writer gate). Larger fractions were measured and did not lower
 * the publish p99 (docs/performance/journal.md).
 */
export function defaultRestartThreshold(walMaxBytes: number): number {
  return Math.max(256 * 1024, Math.floor(walMaxBytes / 16))
}

// Tests run the TypeScript sources (Node strips the types of the worker file); the build runs dist/*.js.
const WORKER_URL = new URL(
  import.meta.url.endsWith('.ts') ? './wal-checkpoint-worker.ts' : './wal-checkpoint-worker.js',
  import.meta.url,
)

/** Polls skipped after the worker failed to start, before trying again (40 × 250 ms = 10 s by default). */
const START_RETRY_POLLS = 40

/** WAL size at which the checkpoint worker is started, unless options say otherwise. */
export const DEFAULT_WORKER_START_BYTES = 1024 * 1024

/**
 * Starts checkpointing the database file at `path`. The worker thread (a whole V8 isolate, ≈ 20 MB resident) is
 * started lazily, once the `-wal` file reaches `workerStartBytes`: an idle service, or one whose writes so far
 * fit in a small WAL (migrations write a few hundred KB), never pays for it. Until then a timer on this thread
 * stats the file (asynchronously) every `intervalMs`. Frames left in the WAL meanwhile are as durable as in the
 * database file; the last connection to close checkpoints them.
 */
export async function startWalCheckpointer(
  path: string,
  options: WalCheckpointerOptions = {},
): Promise<WalCheckpointer> {
  const walMaxBytes = options.walMaxBytes ?? DEFAULT_WAL_MAX_BYTES
  const intervalMs = options.intervalMs ?? 250
  const workerStartBytes = options.workerStartBytes ?? DEFAULT_WORKER_START_BYTES
  const shared = new SharedArrayBuffer(STAT_SLOTS * BigInt64Array.BYTES_PER_ELEMENT)
  const stats = new BigInt64Array(shared)
  const gate = new SharedArrayBuffer(GATE_SLOTS * Int32Array.BYTES_PER_ELEMENT)
  const writerGate = new WriterGate(gate)
  const workerOptions: WorkerOptions = {
    role: 'acdp-wal-checkpointer',
    path,
    truncateThresholdBytes: walMaxBytes,
    intervalMs,
    truncateWaitMs: options.truncateWaitMs ?? 200,
    maxTruncateWaitMs: options.maxTruncateWaitMs ?? 1000,
    maxRetryDelayMs: options.maxRetryDelayMs ?? 30_000,
    journalSizeLimitBytes: journalSizeLimit(walMaxBytes),
    restartThresholdBytes: options.restartThresholdBytes ?? defaultRestartThreshold(walMaxBytes),
    restartWaitMs: options.restartWaitMs ?? 50,
    restartCatchUpMs: options.restartCatchUpMs ?? 40,
    stats: shared,
    gate,
    ...(options.databaseFd !== undefined ? { databaseFd: options.databaseFd } : {}),
  }

  let worker: Worker | undefined
  let starting: Promise<void> | undefined
  let stopping: Promise<void> | undefined

  const startWorker = (): Promise<void> => {
    const candidate = new Worker(WORKER_URL, { workerData: workerOptions })
    candidate.unref()
    return new Promise<void>((resolve) => {
      candidate.once('message', () => {
        worker = candidate
        clearInterval(poll)
        resolve()
      })
      candidate.once('error', () => {
        // Could not start or open its connection: counted as a failed checkpoint, retried after a pause (a
        // thread start is not free, and whatever failed is unlikely to heal within a tick).
        Atomics.add(stats, counterSlot('passive', 'error'), 1n)
        skipPolls = START_RETRY_POLLS
        starting = undefined
        resolve()
      })
    })
  }
  let skipPolls = 0
  const poll = setInterval(() => {
    if (starting !== undefined || stopping !== undefined) return
    if (skipPolls > 0) {
      skipPolls--
      return
    }
    stat(`${path}-wal`).then(
      (file) => {
        Atomics.store(stats, STAT_WAL_BYTES, BigInt(file.size))
        if (file.size >= workerStartBytes && starting === undefined && stopping === undefined) starting = startWorker()
      },
      () => Atomics.store(stats, STAT_WAL_BYTES, 0n), // no WAL file yet
    )
  }, intervalMs)
  poll.unref()
  if (workerStartBytes === 0) starting = startWorker()

  return {
    writerGate,
    stats() {
      const checkpoints = {} as WalCheckpointStats['checkpoints']
      for (const mode of CHECKPOINT_MODES) {
        const byOutcome = {} as Record<CheckpointOutcome, number>
        for (const outcome of CHECKPOINT_OUTCOMES)
          byOutcome[outcome] = Number(Atomics.load(stats, counterSlot(mode, outcome)))
        checkpoints[mode] = byOutcome
      }
      return {
        walBytes: Number(Atomics.load(stats, STAT_WAL_BYTES)),
        checkpoints,
        truncateSeconds: Number(Atomics.load(stats, STAT_TRUNCATE_MICROS)) / 1e6,
        restartSeconds: Number(Atomics.load(stats, STAT_RESTART_MICROS)) / 1e6,
        workerRunning: worker !== undefined && stopping === undefined,
      }
    },
    stop() {
      stopping ??= (async () => {
        clearInterval(poll)
        await starting
        const running = worker
        if (running === undefined) return
        await new Promise<void>((resolve) => {
          const done = () => resolve()
          running.once('exit', done)
          running.once('message', () => void running.terminate().then(done, done))
          running.postMessage('stop')
        })
      })()
      return stopping
    },
  }
}
