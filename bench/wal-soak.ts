/**
 * SQLite WAL soak (`npm run bench:wal-soak`; see docs/performance/journal.md "SQLite WAL bound").
 *
 * Opens a file database through @acdp/storage exactly as the services do (serving connection without
 * auto-checkpoint, checkpoint worker with the WAL threshold), then for BENCH_SECONDS:
 *
 *   - writes rows of 1 KiB in transactions of BENCH_BATCH rows on the serving connection, paced to
 *     BENCH_WRITE_KIB_PER_S of row data (0 = as fast as it goes), timing every transaction: a transaction that
 *     waits on a TRUNCATE checkpoint is a writer pause;
 *   - keeps overlapping read snapshots open from another thread (a new one every BENCH_READ_EVERY_MS, each held
 *     BENCH_READ_HOLD_MS), the load that starves PASSIVE checkpoints;
 *   - every BENCH_LONG_READ_EVERY_S, also holds one snapshot for BENCH_LONG_READ_MS (a backup-like reader that
 *     outlasts any TRUNCATE wait).
 *
 * BENCH_READ_EVERY_MS=0 and BENCH_LONG_READ_EVERY_S=0 run without readers (the services' usual case: PASSIVE
 * checkpoints rewind the WAL and TRUNCATE never runs).
 *
 * Prints every BENCH_REPORT_S: WAL file size (now and the largest seen), rows written, the write-transaction
 * latency p50/p99/max of the window, checkpoint counts, the load average. Ends with a JSON summary, including the
 * writer pauses (transactions over 20 ms: count, p50, p99, total time)
 * (BENCH_OUT=<file> writes it too). BENCH_WAL_MAX_BYTES sets the threshold (default the services' 64 MiB); set it
 * huge to watch the unbounded behaviour. Runs against the built @acdp/storage.
 */
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { DEFAULT_WAL_MAX_BYTES, openDatabase, type SnapshotReaders, startSnapshotReaders } from '@acdp/storage'

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback)
const SECONDS = env('BENCH_SECONDS', 180)
const WAL_MAX_BYTES = env('BENCH_WAL_MAX_BYTES', DEFAULT_WAL_MAX_BYTES)
const BATCH = env('BENCH_BATCH', 16)
const WRITE_KIB_PER_S = env('BENCH_WRITE_KIB_PER_S', 8192)
const READ_EVERY_MS = env('BENCH_READ_EVERY_MS', 50)
const READ_HOLD_MS = env('BENCH_READ_HOLD_MS', 150)
const LONG_READ_EVERY_S = env('BENCH_LONG_READ_EVERY_S', 60)
const LONG_READ_MS = env('BENCH_LONG_READ_MS', 5000)
const REPORT_S = env('BENCH_REPORT_S', 10)
const ROW_BYTES = 1024
const PAUSE_MS = 20
const MIB = 1024 * 1024

function walBytes(path: string): number {
  try {
    return statSync(`${path}-wal`).size
  } catch {
    return 0
  }
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0
  return sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] ?? 0
}

const round = (n: number, digits = 2) => Number(n.toFixed(digits))
const load = () =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(' ')

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'acdp-wal-soak-'))
  const path = join(dir, 'soak.db')
  const database = await openDatabase({ kind: 'sqlite', path, walMaxBytes: WAL_MAX_BYTES })
  const raw = database.sqlite!.raw
  raw.exec('CREATE TABLE soak (id INTEGER PRIMARY KEY, k TEXT NOT NULL UNIQUE, v BLOB NOT NULL)')
  const insert = raw.prepare('INSERT INTO soak (k, v) VALUES (?, ?)')
  const readers =
    READ_EVERY_MS > 0
      ? await startSnapshotReaders(path, { holdMs: READ_HOLD_MS, everyMs: READ_EVERY_MS, table: 'soak' })
      : undefined
  let longReader: SnapshotReaders | undefined
  let longReads = 0

  console.log(
    `wal-soak: ${SECONDS} s, threshold ${round(WAL_MAX_BYTES / MIB)} MiB, ${BATCH} × 1 KiB rows per transaction at ` +
      `${WRITE_KIB_PER_S || 'unpaced'} KiB/s, snapshots held ${READ_HOLD_MS} ms every ${READ_EVERY_MS} ms, ` +
      `a ${LONG_READ_MS} ms snapshot every ${LONG_READ_EVERY_S} s; ${cpus().length} cores, load ${load()}`,
  )
  const started = performance.now()
  const all: number[] = []
  let window: number[] = []
  let rows = 0
  let largestWal = 0
  let nextReport = REPORT_S * 1000
  let nextLongRead = LONG_READ_EVERY_S * 1000
  const payload = Buffer.alloc(ROW_BYTES, 7)
  const series: Array<{ s: number; walMiB: number; maxWalMiB: number; p99Ms: number; load1: number }> = []

  for (;;) {
    const elapsed = performance.now() - started
    if (elapsed >= SECONDS * 1000) break
    if (LONG_READ_EVERY_S > 0 && elapsed >= nextLongRead && longReader === undefined) {
      nextLongRead += LONG_READ_EVERY_S * 1000
      longReader = await startSnapshotReaders(path, { holdMs: LONG_READ_MS, everyMs: 3_600_000, table: 'soak' })
      longReads++
      const ending = longReader
      setTimeout(() => {
        void ending.stop()
        longReader = undefined
      }, LONG_READ_MS + 100)
    }

    const t0 = performance.now()
    raw.exec('BEGIN')
    for (let i = 0; i < BATCH; i++) insert.run(`k${rows + i}`, payload)
    raw.exec('COMMIT')
    const ms = performance.now() - t0
    rows += BATCH
    all.push(ms)
    window.push(ms)
    largestWal = Math.max(largestWal, walBytes(path))

    if (elapsed >= nextReport) {
      nextReport += REPORT_S * 1000
      const sorted = window.sort((a, b) => a - b)
      const stats = database.walStats!()
      const point = {
        s: Math.round(elapsed / 1000),
        walMiB: round(walBytes(path) / MIB),
        maxWalMiB: round(largestWal / MIB),
        p99Ms: round(percentile(sorted, 99)),
        load1: round(loadavg()[0] ?? 0),
      }
      series.push(point)
      const t = stats.checkpoints.truncate
      console.log(
        `${String(point.s).padStart(4)} s  wal ${point.walMiB.toFixed(1).padStart(7)} MiB  max ${point.maxWalMiB
          .toFixed(1)
          .padStart(7)} MiB  rows ${rows}  txn p50 ${round(percentile(sorted, 50))} p99 ${point.p99Ms} max ${round(
          sorted.at(-1) ?? 0,
        )} ms  truncate ok ${t.complete} busy ${t.busy} err ${t.error}  load ${load()}`,
      )
      window = []
    }
    // Pace to the target rate of row data (and always yield, so the timers above run).
    const due = WRITE_KIB_PER_S > 0 ? (rows * ROW_BYTES) / (WRITE_KIB_PER_S * 1024) - elapsed / 1000 : 0
    await sleep(Math.max(0, due * 1000))
  }

  const sorted = all.sort((a, b) => a - b)
  const stats = database.walStats!()
  await readers?.stop()
  await longReader?.stop()
  // Transactions that took longer than PAUSE_MS waited on a checkpoint (or on the machine): the writer pauses.
  const pauses = sorted.filter((ms) => ms > PAUSE_MS)
  const summary = {
    seconds: SECONDS,
    walMaxMiB: round(WAL_MAX_BYTES / MIB),
    rows,
    rowDataMiB: round((rows * ROW_BYTES) / MIB),
    largestWalMiB: round(largestWal / MIB),
    finalWalMiB: round(walBytes(path) / MIB),
    transactions: sorted.length,
    txnP50Ms: round(percentile(sorted, 50), 3),
    txnP99Ms: round(percentile(sorted, 99)),
    txnP999Ms: round(percentile(sorted, 99.9)),
    txnMaxMs: round(sorted.at(-1) ?? 0),
    pausesOver20Ms: pauses.length,
    pauseP50Ms: round(percentile(pauses, 50)),
    pauseP99Ms: round(percentile(pauses, 99)),
    writerPausedSeconds: round(pauses.reduce((sum, ms) => sum + ms, 0) / 1000),
    longReads,
    checkpoints: stats.checkpoints,
    truncateSeconds: round(stats.truncateSeconds),
    loadAverage: load(),
    series,
  }
  console.log(JSON.stringify(summary, null, 2))
  if (process.env['BENCH_OUT']) writeFileSync(process.env['BENCH_OUT'], JSON.stringify(summary, null, 2))
  await database.close()
  rmSync(dir, { recursive: true, force: true })
}

await main()
