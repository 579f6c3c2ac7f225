/**
 * The SQLite WAL metrics both servers expose when their store is a SQLite file: the -wal size and the checkpoint
 * worker's running totals (@acdp/storage wal-checkpointer.ts), read at scrape time. Each server names them under
 * its own prefix (`acdp_sqlite_wal_*` on the control plane, `acdp_registry_sqlite_wal_*` on the registry).
 */
import type { WalCheckpointStats } from '@acdp/storage'
import { Counter, Gauge, type Registry } from 'prom-client'

/**
 * Registers the four WAL metrics in `registers`, named `<prefix>sqlite_wal_bytes`,
 * `<prefix>sqlite_wal_checkpoints_total{mode,outcome}`, `<prefix>sqlite_wal_truncate_seconds_total` and
 * `<prefix>sqlite_wal_restart_seconds_total`, each reading `source` when scraped.
 */
export function registerSqliteWalMetrics(
  registers: Registry[],
  prefix: string,
  source: () => WalCheckpointStats,
): void {
  new Gauge({
    name: `${prefix}sqlite_wal_bytes`,
    help: 'Size of the SQLite -wal file at the last checkpoint tick, in bytes.',
    registers,
    collect() {
      this.set(source().walBytes)
    },
  })
  new Counter({
    name: `${prefix}sqlite_wal_checkpoints_total`,
    help: 'SQLite WAL checkpoints by mode (passive, restart, truncate) and outcome (complete, partial, busy, error).',
    labelNames: ['mode', 'outcome'] as const,
    registers,
    collect() {
      // The worker keeps the running totals; the counter mirrors them.
      this.reset()
      for (const [mode, byOutcome] of Object.entries(source().checkpoints)) {
        for (const [outcome, count] of Object.entries(byOutcome)) this.inc({ mode, outcome }, count)
      }
    },
  })
  new Counter({
    name: `${prefix}sqlite_wal_truncate_seconds_total`,
    help: 'Time spent in TRUNCATE checkpoints, during which writers wait, in seconds.',
    registers,
    collect() {
      this.reset()
      this.inc(source().truncateSeconds)
    },
  })
  new Counter({
    name: `${prefix}sqlite_wal_restart_seconds_total`,
    help: 'Time spent in RESTART checkpoints (writers wait during their copy and reader wait), in seconds.',
    registers,
    collect() {
      this.reset()
      this.inc(source().restartSeconds)
    },
  })
}
