/**
 * In-process start and graceful shutdown over a real socket, on embedded SQLite in a temporary DATA_DIR.
 */
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { loadConfig } from '../src/core/config.js'
import { startControlPlane } from '../src/start.js'

describe('startControlPlane', () => {
  let dir: string | undefined
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true })
  })

  it('migrates a fresh SQLite file, listens, answers probes, and shuts down gracefully', async () => {
    dir = mkdtempSync(join(tmpdir(), 'acdp-cp-'))
    const config = loadConfig({
      NODE_ENV: 'development',
      LOG_LEVEL: 'silent',
      HOST: '127.0.0.1',
      PORT: '0',
      DATA_DIR: dir,
      SWAGGER_ENABLED: 'false',
    })
    const running = await startControlPlane(config)
    expect(existsSync(join(dir, 'control-plane.db'))).toBe(true)
    // Development without SECRETS_ENCRYPTION_KEY: a key file is generated, readable by the owner only.
    expect(statSync(join(dir, 'secrets.key')).mode & 0o077).toBe(0)
    const health = await fetch(`${running.url}/healthz`)
    expect(health.status).toBe(200)
    expect(await health.json()).toMatchObject({ ok: true, service: 'acdp-control-plane' })
    // WAL metrics are exported for the SQLite file; right after start (migrations write far less than 1 MiB)
    // the checkpoint worker has not been started, so no checkpoint has run.
    const metrics = await (await fetch(`${running.url}/metrics`)).text()
    expect(metrics).toMatch(/^acdp_sqlite_wal_bytes \d+$/m)
    expect(metrics).toMatch(/^acdp_sqlite_wal_checkpoints_total\{mode="passive",outcome="complete"\} 0$/m)
    expect(metrics).toContain('# TYPE acdp_sqlite_wal_truncate_seconds_total counter')
    expect(await running.close()).toBe(true)
    // Idempotent.
    expect(await running.close()).toBe(true)
    await expect(fetch(`${running.url}/healthz`)).rejects.toThrow()
  })

  it('reuses the generated secrets key across restarts', async () => {
    dir = mkdtempSync(join(tmpdir(), 'acdp-cp-'))
    const env = { LOG_LEVEL: 'silent', HOST: '127.0.0.1', PORT: '0', DATA_DIR: dir, SWAGGER_ENABLED: 'false' }
    const first = await startControlPlane(loadConfig(env))
    const key = first.deps.secrets.current
    await first.close()
    const second = await startControlPlane(loadConfig(env))
    expect(Buffer.from(second.deps.secrets.current).equals(Buffer.from(key))).toBe(true)
    await second.close()
  })
})
