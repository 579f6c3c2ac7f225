import type { WalCheckpointStats } from '@acdp/storage'
import { Registry } from 'prom-client'
import { describe, expect, it } from 'vitest'
import { registerSqliteWalMetrics } from './sqlite-wal-metrics.js'

const zero = { complete: 0, partial: 0, busy: 0, error: 0 }

describe('registerSqliteWalMetrics', () => {
  it('exposes the WAL size and checkpoint totals under the prefix, read at every scrape', async () => {
    const registry = new Registry()
    let stats: WalCheckpointStats = {
      walBytes: 4096,
      checkpoints: { passive: { ...zero, complete: 3 }, restart: { ...zero }, truncate: { ...zero, busy: 1 } },
      truncateSeconds: 0.25,
      restartSeconds: 0,
      workerRunning: true,
    }
    registerSqliteWalMetrics([registry], 'acdp_test_', () => stats)
    const first = await registry.metrics()
    expect(first).toContain('acdp_test_sqlite_wal_bytes 4096')
    expect(first).toContain('acdp_test_sqlite_wal_checkpoints_total{mode="passive",outcome="complete"} 3')
    expect(first).toContain('acdp_test_sqlite_wal_checkpoints_total{mode="truncate",outcome="busy"} 1')
    expect(first).toContain('acdp_test_sqlite_wal_truncate_seconds_total 0.25')
    expect(first).toContain('acdp_test_sqlite_wal_restart_seconds_total 0')

    // The counters mirror the worker's running totals: a later scrape shows the new totals, not a sum.
    stats = { ...stats, walBytes: 0, checkpoints: { ...stats.checkpoints, passive: { ...zero, complete: 5 } } }
    const second = await registry.metrics()
    expect(second).toContain('acdp_test_sqlite_wal_bytes 0')
    expect(second).toContain('acdp_test_sqlite_wal_checkpoints_total{mode="passive",outcome="complete"} 5')
  })
})
