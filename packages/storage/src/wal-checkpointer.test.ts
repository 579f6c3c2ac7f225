import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { sql } from 'kysely'
import { afterEach, describe, expect, it } from 'vitest'
import { type Database, openDatabase } from './open-database.js'
import { type SnapshotReaders, startSnapshotReaders } from './snapshot-readers.js'
import { GATE_CHECKPOINT, GATE_SLOTS } from './wal-checkpoint-worker.js'
import { startWalCheckpointer, WriterGate } from './wal-checkpointer.js'

const MIB = 1024 * 1024

/** The one table these tests write. */
interface WalTestTables {
  t: { id: number; v: string }
}
/** The load tests write a fixed volume; on a busy machine that takes longer than vitest's default allowance. */
const LOAD_TEST_TIMEOUT_MS = 60_000

function walBytes(path: string): number {
  try {
    return statSync(`${path}-wal`).size
  } catch {
    return 0
  }
}

/** Polls `condition` every 50 ms until it holds or `limitMs` passes; returns whether it held. */
async function eventually(condition: () => boolean, limitMs: number): Promise<boolean> {
  const deadline = Date.now() + limitMs
  while (!condition()) {
    if (Date.now() > deadline) return false
    await sleep(50)
  }
  return true
}

describe('file-backed SQLite', () => {
  const dirs: string[] = []
  const cleanups: Array<() => Promise<unknown>> = []
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup()
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
  })

  function tempPath(): string {
    const dir = mkdtempSync(join(tmpdir(), 'acdp-wal-'))
    dirs.push(dir)
    return join(dir, 'db.sqlite')
  }

  async function open(path: string, walMaxBytes?: number): Promise<Database<WalTestTables>> {
    const database = await openDatabase<WalTestTables>({
      kind: 'sqlite',
      path,
      ...(walMaxBytes ? { walMaxBytes } : {}),
    })
    cleanups.push(() => database.close())
    return database
  }

  async function readers(path: string, holdMs: number, everyMs: number): Promise<SnapshotReaders> {
    const started = await startSnapshotReaders(path, { holdMs, everyMs, table: 't' })
    cleanups.push(() => started.stop())
    return started
  }

  /**
   * Writes `totalBytes` of 2 KB rows on the serving connection in small batches, yielding between batches (so
   * the write rate stays moderate whatever the machine), and samples the WAL file size after every batch.
   * Returns the largest size seen.
   */
  async function writeLoad(database: Database<WalTestTables>, path: string, totalBytes: number): Promise<number> {
    const insert = database.sqlite!.raw.prepare('INSERT INTO t (v) VALUES (?)')
    const row = 'x'.repeat(2048)
    let written = 0
    let largest = 0
    while (written < totalBytes) {
      database.sqlite!.raw.exec('BEGIN')
      for (let i = 0; i < 8; i++) insert.run(row)
      database.sqlite!.raw.exec('COMMIT')
      written += 8 * row.length
      largest = Math.max(largest, walBytes(path))
      await sleep(5)
    }
    return largest
  }

  it('never checkpoints on the serving connection; starts the worker once the WAL reaches 1 MiB, which copies it back', async () => {
    const path = tempPath()
    const database = await openDatabase<WalTestTables>({ kind: 'sqlite', path })
    const setting = await sql<{ wal_autocheckpoint: number }>`PRAGMA wal_autocheckpoint`.execute(database.db)
    expect(setting.rows[0]?.wal_autocheckpoint).toBe(0)
    const limit = await sql<{ journal_size_limit: number }>`PRAGMA journal_size_limit`.execute(database.db)
    expect(limit.rows[0]?.journal_size_limit).toBe(32 * MIB)

    await sql`CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)`.execute(database.db)
    for (let i = 0; i < 20; i++) await sql`INSERT INTO t (v) VALUES (${'x'.repeat(500)})`.execute(database.db)
    // The poll has seen the small WAL (bounded wait), and a small WAL does not start the worker thread.
    expect(await eventually(() => database.walStats!().walBytes > 0, 5_000)).toBe(true)
    expect(database.walStats!().workerRunning).toBe(false)
    const sizeBefore = statSync(path).size

    for (let i = 0; i < 300; i++) await sql`INSERT INTO t (v) VALUES (${'y'.repeat(4000)})`.execute(database.db)
    expect(await eventually(() => database.walStats!().workerRunning, 5_000)).toBe(true)
    // The worker checkpoints every 250 ms; wait (bounded) until the database file has grown.
    expect(await eventually(() => statSync(path).size > sizeBefore, 5_000)).toBe(true)
    // The worker counts a checkpoint after it returns, a moment after the file changed.
    expect(await eventually(() => database.walStats!().checkpoints.passive.complete > 0, 5_000)).toBe(true)

    await database.close()
    const reopened = await openDatabase<WalTestTables>({ kind: 'sqlite', path })
    const count = await sql<{ n: number }>`SELECT count(*) AS n FROM t`.execute(reopened.db)
    expect(count.rows[0]?.n).toBe(320)
    await reopened.close()
  })

  it(
    'under a steady writer without readers, RESTART checkpoints let the WAL rewind: it stays small, no TRUNCATE',
    async () => {
      const path = tempPath()
      // RESTART above 1 MiB of frames (a sixteenth of 16 MiB); 24 MiB of rows (≈ 60 MiB of frames) written.
      const database = await open(path, 16 * MIB)
      database.sqlite!.raw.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)')
      const largest = await writeLoad(database, path, 24 * MIB)

      const stats = database.walStats!()
      expect(stats.checkpoints.restart.complete).toBeGreaterThan(0)
      const truncates = Object.values(stats.checkpoints.truncate).reduce((sum, count) => sum + count, 0)
      expect(truncates).toBe(0)
      // Without the rewinds the file would hold every frame written (the test above); with them it stays within
      // the RESTART threshold plus what the writer adds between ticks.
      expect(largest).toBeLessThan(8 * MIB)
      const rows = database.sqlite!.raw.prepare('SELECT count(*) AS n FROM t').get() as { n: number }
      expect(rows.n).toBe(((24 * MIB) / (8 * 2048)) * 8)
    },
    LOAD_TEST_TIMEOUT_MS,
  )

  it(
    'a writer that uses the writer gate never meets a checkpoint hold: with no busy timeout, no BEGIN is refused',
    async () => {
      const path = tempPath()
      // RESTART above 1 MiB of frames (a sixteenth of 16 MiB); 24 MiB of rows written.
      const database = await open(path, 16 * MIB)
      const raw = database.sqlite!.raw
      raw.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)')
      // Any writer-lock hold the writer met would now fail its BEGIN with SQLITE_BUSY instead of waiting.
      raw.exec('PRAGMA busy_timeout = 0')
      const gate = database.writerGate!
      const insert = raw.prepare('INSERT INTO t (v) VALUES (?)')
      const row = 'x'.repeat(2048)
      let written = 0
      let refused = 0
      let stoodAside = 0
      while (written < 24 * MIB) {
        if (!gate.enter()) {
          stoodAside++
          expect(await gate.released(5_000)).toBe(true)
          continue
        }
        try {
          raw.exec('BEGIN IMMEDIATE')
          for (let i = 0; i < 8; i++) insert.run(row)
          raw.exec('COMMIT')
          written += 8 * row.length
        } catch (error) {
          if (!/busy|locked/i.test(String(error))) throw error
          refused++
        } finally {
          gate.leave()
        }
        await sleep(1)
      }
      const stats = database.walStats!()
      // The WAL was rewound under load by RESTARTs taken while the writer stood aside, never across its BEGIN.
      expect(stats.checkpoints.restart.complete).toBeGreaterThan(0)
      expect(refused).toBe(0)
      expect(stoodAside).toBeGreaterThan(0)
      expect(walBytes(path)).toBeLessThan(16 * MIB)
    },
    LOAD_TEST_TIMEOUT_MS,
  )

  it('the writer gate: enter() refuses while the checkpoint flag is up; released() wakes on its release or times out', async () => {
    const buffer = new SharedArrayBuffer(GATE_SLOTS * Int32Array.BYTES_PER_ELEMENT)
    const slots = new Int32Array(buffer)
    const gate = new WriterGate(buffer)
    expect(gate.enter()).toBe(true)
    gate.leave()
    Atomics.store(slots, GATE_CHECKPOINT, 1)
    expect(gate.enter()).toBe(false)
    expect(await gate.released(20)).toBe(false)
    const woken = gate.released(5_000)
    setTimeout(() => {
      Atomics.store(slots, GATE_CHECKPOINT, 0)
      Atomics.notify(slots, GATE_CHECKPOINT)
    }, 10)
    expect(await woken).toBe(true)
    expect(gate.enter()).toBe(true)
    gate.leave()
  })

  it('closes cleanly when the worker never started, keeping every row', async () => {
    const path = tempPath()
    const database = await openDatabase<WalTestTables>({ kind: 'sqlite', path })
    database.sqlite!.raw.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)')
    database.sqlite!.raw.prepare('INSERT INTO t (v) VALUES (?)').run('kept')
    expect(database.walStats!().workerRunning).toBe(false)
    await database.close()
    const reopened = await openDatabase<WalTestTables>({ kind: 'sqlite', path })
    const rows = reopened.sqlite!.raw.prepare('SELECT v FROM t').all()
    expect(rows).toEqual([{ v: 'kept' }])
    await reopened.close()
  })

  it('counts a worker that cannot open the file as a checkpoint error, and still stops cleanly', async () => {
    // A directory is no database file: the worker's connection fails to open.
    const dir = mkdtempSync(join(tmpdir(), 'acdp-wal-'))
    dirs.push(dir)
    const checkpointer = await startWalCheckpointer(dir, { workerStartBytes: 0 })
    expect(await eventually(() => checkpointer.stats().checkpoints.passive.error === 1, 10_000)).toBe(true)
    expect(checkpointer.stats().workerRunning).toBe(false)
    await checkpointer.stop()
    expect(checkpointer.stats().checkpoints.passive.complete).toBe(0)
  })

  it('refuses a WAL threshold below 1 MiB', async () => {
    await expect(openDatabase({ kind: 'sqlite', path: tempPath(), walMaxBytes: 4096 })).rejects.toThrow(/walMaxBytes/)
  })

  // Overlapping 150 ms snapshots, a new one every 50 ms: some reader is always on the WAL, so PASSIVE
  // checkpoints can never rewind it. 16 MiB of rows (≈ 40 MiB of WAL frames) against a 4 MiB threshold.
  const THRESHOLD = 4 * MIB
  const VOLUME = 16 * MIB

  it(
    'without a reachable threshold, overlapping readers let the WAL grow with every write (the failure bounded below)',
    async () => {
      const path = tempPath()
      const database = await open(path, 1024 * MIB)
      database.sqlite!.raw.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)')
      await readers(path, 150, 50)
      const largest = await writeLoad(database, path, VOLUME)
      expect(largest).toBeGreaterThan(4 * THRESHOLD)
      expect(database.walStats!().checkpoints.truncate.complete).toBe(0)
    },
    LOAD_TEST_TIMEOUT_MS,
  )

  it(
    'keeps the WAL file bounded under sustained writes with overlapping long readers',
    async () => {
      const path = tempPath()
      const database = await open(path, THRESHOLD)
      database.sqlite!.raw.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)')
      const snapshotReaders = await readers(path, 150, 50)
      const largest = await writeLoad(database, path, VOLUME)
      expect(await snapshotReaders.stop()).toBeGreaterThan(10)

      // Bound: the threshold plus what the writer adds until a TRUNCATE gets through (a tick to notice, a retry
      // delay after an attempt the readers outlast; writers are held during the attempts themselves).
      expect(largest).toBeLessThanOrEqual(4 * THRESHOLD)
      const stats = database.walStats!()
      expect(stats.checkpoints.truncate.complete).toBeGreaterThan(0)
      expect(stats.walBytes).toBeLessThanOrEqual(4 * THRESHOLD)
      const rows = database.sqlite!.raw.prepare('SELECT count(*) AS n FROM t').get() as { n: number }
      expect(rows.n).toBe((VOLUME / (8 * 2048)) * 8)
    },
    LOAD_TEST_TIMEOUT_MS,
  )

  it(
    'retries a TRUNCATE that a reader holding one snapshot blocks, and bounds the WAL once it lets go',
    async () => {
      const path = tempPath()
      const database = await open(path, THRESHOLD)
      database.sqlite!.raw.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)')
      // One snapshot held until stop(), far longer than a TRUNCATE waits (at most 1 s): every attempt is busy.
      const longReader = await readers(path, 600_000, 600_000)
      await writeLoad(database, path, THRESHOLD)
      expect(walBytes(path)).toBeGreaterThan(THRESHOLD)
      expect(await eventually(() => database.walStats!().checkpoints.truncate.busy > 0, 20_000)).toBe(true)
      await longReader.stop()

      expect(await eventually(() => walBytes(path) <= THRESHOLD, 20_000)).toBe(true)
      // The worker counts the TRUNCATE after it returns, a moment after the file shrank.
      expect(await eventually(() => database.walStats!().checkpoints.truncate.complete > 0, 5_000)).toBe(true)
      const rows = database.sqlite!.raw.prepare('SELECT count(*) AS n FROM t').get() as { n: number }
      expect(rows.n).toBe((THRESHOLD / (8 * 2048)) * 8)
    },
    LOAD_TEST_TIMEOUT_MS,
  )
})
