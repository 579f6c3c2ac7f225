/**
 * Moves SQLite WAL checkpoints off the serving thread.
 *
 * node:sqlite is synchronous: with automatic checkpoints, the commit that crosses the WAL threshold copies
 * pages back into the database file and fsyncs on the event loop, and every request queued behind it inherits
 * that stall. Instead the serving connection disables auto-checkpointing and a worker thread with its own
 * connection runs PASSIVE checkpoints (which never block writers or readers) on an interval.
 */
import { Worker } from 'node:worker_threads'

// Runs in the worker (CommonJS eval context). It owns one connection and checkpoints until told to stop.
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads')
const { DatabaseSync } = require('node:sqlite')
const db = new DatabaseSync(workerData.path)
db.exec('PRAGMA busy_timeout = 1000')
const checkpoint = () => {
  try { db.prepare('PRAGMA wal_checkpoint(PASSIVE)').get() } catch { /* busy or closing: next tick retries */ }
}
const timer = setInterval(checkpoint, workerData.intervalMs)
parentPort.on('message', (message) => {
  if (message !== 'stop') return
  clearInterval(timer)
  checkpoint()
  db.close()
  parentPort.postMessage('stopped')
})
parentPort.postMessage('ready')
`

export interface WalCheckpointer {
  /** Runs a last checkpoint, closes the worker's connection and ends the thread. */
  stop(): Promise<void>
}

/** Starts a checkpointing worker for the database file at `path`; resolves once its connection is open. */
export async function startWalCheckpointer(path: string, intervalMs = 250): Promise<WalCheckpointer> {
  const worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { path, intervalMs } })
  worker.unref()
  await new Promise<void>((resolve, reject) => {
    worker.once('message', () => resolve())
    worker.once('error', reject)
  })
  let stopping: Promise<void> | undefined
  return {
    stop() {
      stopping ??= new Promise<void>((resolve) => {
        const done = () => resolve()
        worker.once('exit', done)
        worker.once('message', () => void worker.terminate().then(done, done))
        worker.postMessage('stop')
      })
      return stopping
    },
  }
}
