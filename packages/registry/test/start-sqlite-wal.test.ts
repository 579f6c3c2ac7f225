/**
 * startRegistry on a SQLite file: the configured WAL threshold reaches the storage layer and the checkpoint
 * worker's figures reach /metrics; an in-memory database (no WAL, no worker) exposes no WAL metric.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { ConfigError, resolveConfig } from '../src/core/config.js'
import { type RunningRegistry, startRegistry } from '../src/start.js'

describe('startRegistry on SQLite', () => {
  let running: RunningRegistry | undefined
  let dir: string | undefined
  afterEach(async () => {
    await running?.close()
    running = undefined
    if (dir) rmSync(dir, { recursive: true, force: true })
    dir = undefined
  })

  async function scrape(registry: RunningRegistry): Promise<string> {
    const res = await registry.app.inject({ method: 'GET', url: '/metrics' })
    expect(res.statusCode).toBe(200)
    return res.body
  }

  it('reports the WAL size and checkpoint counts of a file database in /metrics', async () => {
    dir = mkdtempSync(join(tmpdir(), 'acdp-registry-wal-'))
    const config = resolveConfig({
      registry: { authority: 'registry.localhost', log_level: 'silent' },
      storage: { sqlite_path: join(dir, 'registry.db'), sqlite_wal_max_bytes: 2 * 1024 * 1024 },
      metrics: { enabled: true },
    })
    running = await startRegistry(config)
    const text = await scrape(running)
    // Right after start (migrations write far less than 1 MiB) the checkpoint worker has not been started.
    expect(text).toMatch(/^acdp_registry_sqlite_wal_bytes \d+$/m)
    expect(text).toMatch(/^acdp_registry_sqlite_wal_checkpoints_total\{mode="passive",outcome="complete"\} 0$/m)
    expect(text).toContain('# TYPE acdp_registry_sqlite_wal_truncate_seconds_total counter')
  })

  it('exposes no WAL metric for an in-memory database', async () => {
    const config = resolveConfig({
      registry: { authority: 'registry.localhost', log_level: 'silent' },
      storage: { sqlite_path: ':memory:' },
      metrics: { enabled: true },
    })
    running = await startRegistry(config)
    expect(await scrape(running)).not.toContain('acdp_registry_sqlite_wal')
  })

  it('refuses a WAL threshold below 1 MiB', () => {
    expect(() =>
      resolveConfig({ registry: { authority: 'registry.localhost' }, storage: { sqlite_wal_max_bytes: 4096 } }),
    ).toThrow(ConfigError)
  })
})
