/**
 * Test and benchmark support: readers that hold SQLite read snapshots from another thread, the load that starves
 * WAL checkpoints (a backup tool, a report, a second process reading the same file).
 *
 * Every `everyMs` one of the thread's connections opens a read transaction (BEGIN + a read, which pins the
 * snapshot) and keeps it for `holdMs`. With `holdMs > everyMs` snapshots overlap, so at every instant some reader
 * still reads from the WAL. The readers run in a worker because a writer waiting on a checkpoint blocks its own
 * thread: readers sharing that thread could never finish.
 *
 * Like wal-checkpoint-worker.ts this module imports only `node:` modules: the worker loads this same file.
 */
import { DatabaseSync } from 'node:sqlite'
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads'

export interface SnapshotReaderOptions {
  /** How long each read transaction stays open. */
  holdMs: number
  /** How often a new read transaction starts. */
  everyMs: number
  /** The table each reader counts to pin its snapshot. */
  table: string
}

export interface SnapshotReaders {
  /** Ends every open read transaction, closes the connections and the thread; resolves with snapshots taken. */
  stop(): Promise<number>
}

interface ReaderWorkerData extends SnapshotReaderOptions {
  role: 'acdp-snapshot-readers'
  path: string
}

/** Starts the reader thread on the database file at `path`; resolves once the first snapshot is held. */
export async function startSnapshotReaders(path: string, options: SnapshotReaderOptions): Promise<SnapshotReaders> {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(options.table)) throw new TypeError(`not a table name: ${options.table}`)
  const data: ReaderWorkerData = { role: 'acdp-snapshot-readers', path, ...options }
  const worker = new Worker(new URL(import.meta.url), { workerData: data })
  await new Promise<void>((resolve, reject) => {
    worker.once('message', () => resolve())
    worker.once('error', reject)
  })
  let stopping: Promise<number> | undefined
  return {
    stop() {
      stopping ??= new Promise<number>((resolve, reject) => {
        worker.once('message', (taken: number) => void worker.terminate().then(() => resolve(taken), reject))
        worker.postMessage('stop')
      })
      return stopping
    },
  }
}

function runReaders(data: ReaderWorkerData): void {
  const port = parentPort
  if (port === null) return
  // Enough connections that each has ended its previous snapshot before it is asked for the next one.
  const connections = Array.from(
    { length: Math.ceil(data.holdMs / data.everyMs) + 1 },
    () => new DatabaseSync(data.path, { readOnly: true }),
  )
  const open = new Set<DatabaseSync>()
  const timers = new Set<NodeJS.Timeout>()
  let taken = 0
  const take = () => {
    const connection = connections[taken % connections.length]
    if (connection === undefined || open.has(connection)) return
    connection.exec('BEGIN')
    connection.prepare(`SELECT count(*) AS n FROM ${data.table}`).get()
    open.add(connection)
    taken++
    const timer = setTimeout(() => {
      timers.delete(timer)
      open.delete(connection)
      connection.exec('COMMIT')
    }, data.holdMs)
    timers.add(timer)
  }
  take()
  const interval = setInterval(take, data.everyMs)
  port.on('message', () => {
    clearInterval(interval)
    for (const timer of timers) clearTimeout(timer)
    for (const connection of open) connection.exec('COMMIT')
    for (const connection of connections) connection.close()
    port.postMessage(taken)
  })
  port.postMessage('ready')
}

const data = workerData as Partial<ReaderWorkerData> | null
if (!isMainThread && data?.role === 'acdp-snapshot-readers') runReaders(data as ReaderWorkerData)
