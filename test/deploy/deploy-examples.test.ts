/**
 * The deployment examples of deploy/ and the commands of docs/deploy.md, exercised:
 *   - deploy/generate-secrets.sh writes both secrets files (owner-only) with values the services accept;
 *   - deploy/registry.toml + its secrets start the registry through its real CLI path (PostgreSQL when
 *     ACDP_TEST_DATABASE_URL is set, else the same file with the storage switched to SQLite by environment);
 *   - deploy/control-plane.env + its secrets start the control plane through the real config loader;
 *   - the systemd units point at the real bins and example files, outlast the services' own shutdown
 *     deadlines, do not restart on a refused configuration, and pass `systemd-analyze verify` when available;
 *   - the SQLite online backup command, taken while the registry is writing, yields a file that passes
 *     `PRAGMA integrity_check` and, restored, serves every context acknowledged before the backup began;
 *   - pg_dump / pg_restore of a running registry's database restores into a database the registry serves from;
 *   - two registry instances starting at once on one PostgreSQL database apply each migration once (the
 *     advisory lock of docs/deploy.md "Upgrades").
 */
import { execFile } from 'node:child_process'
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { testDatabaseUrl } from '@acdp/storage'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig as loadControlPlaneConfig } from '../../packages/control-plane/src/config.js'
import { startControlPlane } from '../../packages/control-plane/src/start.js'
import { type CliRun, runRegistryCli, SHUTDOWN_GRACE_MS } from '../../packages/registry/src/cli.js'
import { didKeyProducer, minimalUnsigned, signRequest } from '../../packages/registry/test/support/registry-harness.js'
import { type CrashBackend, openCrashBackend } from '../crash/backends.js'
import { BINS, REPOSITORY_ROOT } from '../crash/service-process.js'
import { parseEnvironmentFile, parseUnitFile, timeSpanSeconds } from './deploy-files.js'

const run = promisify(execFile)
/**
 * These tests start the services (and PostgreSQL clients, shell tools): on a loaded 2-core machine that takes far
 * longer than the default 20 s, so each test and hook gets a bound that fits. It bounds a hang; no timing is asserted.
 */
const SERVICE_TEST_TIMEOUT_MS = 90_000
const DEPLOY = join(REPOSITORY_ROOT, 'deploy')
const hasCommand = async (name: string) =>
  run('sh', ['-c', `command -v ${name}`]).then(
    () => true,
    () => false,
  )

let secretsDir: string
beforeAll(async () => {
  secretsDir = mkdtempSync(join(tmpdir(), 'acdp-deploy-secrets-'))
  await run('bash', [join(DEPLOY, 'generate-secrets.sh'), secretsDir])
}, SERVICE_TEST_TIMEOUT_MS)
afterAll(() => {
  rmSync(secretsDir, { recursive: true, force: true })
})

const secrets = (name: string) => parseEnvironmentFile(readFileSync(join(secretsDir, name), 'utf8'))

/** Starts the registry the way the systemd unit does: `--config deploy/registry.toml`, secrets in the env. */
async function startRegistryFromExample(env: Record<string, string>): Promise<{ run: CliRun; baseUrl: string }> {
  const exits: number[] = []
  const errors: string[] = []
  const started = await runRegistryCli(['--config', join(DEPLOY, 'registry.toml')], {
    env: {
      NODE_ENV: 'production',
      ...secrets('registry.secrets.env'),
      ACDP_REGISTRY_REGISTRY__PORT: '0',
      ACDP_REGISTRY_REGISTRY__LOG_LEVEL: 'silent',
      ...env,
    },
    stdout: () => {},
    stderr: (text) => errors.push(text),
    exit: (code) => exits.push(code),
    onStopSignal: () => {},
  })
  if (started === undefined) throw new Error(`registry refused to start (${exits.join()}): ${errors.join('')}`)
  const address = started.registry.app.server.address()
  const port = typeof address === 'object' && address !== null ? address.port : 0
  return { run: started, baseUrl: `http://127.0.0.1:${port}` }
}

/** Storage for an example run: PostgreSQL when available (as in the example), else SQLite. */
async function registryStorage(label: string): Promise<{ backend: CrashBackend; env: Record<string, string> }> {
  const backend = await openCrashBackend(testDatabaseUrl() === undefined ? 'sqlite' : 'postgres', label)
  const env: Record<string, string> =
    backend.kind === 'postgres'
      ? { ACDP_REGISTRY_STORAGE__POSTGRES_URL: backend.postgresUrl }
      : { ACDP_REGISTRY_STORAGE__BACKEND: 'sqlite', ACDP_REGISTRY_STORAGE__SQLITE_PATH: backend.sqlitePath }
  return { backend, env }
}

async function publishOne(baseUrl: string, title: string, producer = didKeyProducer()): Promise<string> {
  const answer = await fetch(`${baseUrl}/contexts`, {
    method: 'POST',
    headers: { 'content-type': 'application/acdp+json' },
    body: JSON.stringify(signRequest(producer, minimalUnsigned(producer, { title }))),
  })
  if (answer.status !== 201) throw new Error(`publish answered ${answer.status}: ${await answer.text()}`)
  return ((await answer.json()) as { ctx_id: string }).ctx_id
}

describe('deploy/generate-secrets.sh', { timeout: SERVICE_TEST_TIMEOUT_MS }, () => {
  it('writes owner-only secrets files with the shared webhook secret, and never overwrites them', async () => {
    for (const name of ['registry.secrets.env', 'control-plane.secrets.env']) {
      expect(statSync(join(secretsDir, name)).mode & 0o077).toBe(0)
    }
    expect(secrets('registry.secrets.env').ACDP_REGISTRY_WEBHOOK__SECRET).toBe(
      secrets('control-plane.secrets.env').WEBHOOK_SECRET,
    )
    expect(Buffer.from(secrets('control-plane.secrets.env').SECRETS_ENCRYPTION_KEY ?? '', 'base64')).toHaveLength(32)
    await expect(run('bash', [join(DEPLOY, 'generate-secrets.sh'), secretsDir])).rejects.toThrow(/not overwriting/)
  })
})

describe('deploy/registry.toml', { timeout: SERVICE_TEST_TIMEOUT_MS }, () => {
  it('starts the registry, which answers /healthz and guards /metrics with the generated bearer', async () => {
    const { backend, env } = await registryStorage('deploy-registry')
    const { run: registry, baseUrl } = await startRegistryFromExample(env)
    try {
      expect(registry.config.storage.backend).toBe(backend.kind)
      const health = await fetch(`${baseUrl}/healthz`)
      expect(health.status).toBe(200)
      expect(((await health.json()) as { storage: boolean }).storage).toBe(true)
      expect((await fetch(`${baseUrl}/metrics`)).status).toBe(401)
      const token = secrets('registry.secrets.env').ACDP_REGISTRY_METRICS__BEARER_TOKEN
      expect((await fetch(`${baseUrl}/metrics`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200)
    } finally {
      await registry.registry.close()
      await backend.dispose()
    }
  })
})

describe('upgrades', { timeout: SERVICE_TEST_TIMEOUT_MS }, () => {
  it('instances starting together on one PostgreSQL database apply each migration exactly once', async () => {
    if (testDatabaseUrl() === undefined) {
      console.warn('[deploy] ACDP_TEST_DATABASE_URL unset: concurrent migration not exercised')
      return
    }
    const backend = await openCrashBackend('postgres', 'deploy-upgrade')
    const env = { ACDP_REGISTRY_STORAGE__POSTGRES_URL: backend.postgresUrl }
    try {
      const instances = await Promise.all([startRegistryFromExample(env), startRegistryFromExample(env)])
      try {
        const applied = instances.flatMap((i) => i.run.registry.migrationsApplied)
        expect(applied.length).toBeGreaterThan(0)
        expect(new Set(applied).size).toBe(applied.length)
        for (const instance of instances) expect((await fetch(`${instance.baseUrl}/healthz`)).status).toBe(200)
      } finally {
        await Promise.all(instances.map((i) => i.run.registry.close()))
      }
    } finally {
      await backend.dispose()
    }
  })
})

describe('deploy/control-plane.env', { timeout: SERVICE_TEST_TIMEOUT_MS }, () => {
  it('starts the control plane, whose /healthz and /readyz answer 200', async () => {
    const file = parseEnvironmentFile(readFileSync(join(DEPLOY, 'control-plane.env'), 'utf8'))
    const backend = await openCrashBackend(testDatabaseUrl() === undefined ? 'sqlite' : 'postgres', 'deploy-cp')
    const env: Record<string, string> = {
      ...file,
      ...secrets('control-plane.secrets.env'),
      PORT: '0',
      LOG_LEVEL: 'silent',
      // The example's drain delay gives load balancers time to notice; nothing balances this test.
      SHUTDOWN_DRAIN_DELAY_MS: '0',
    }
    if (backend.kind === 'postgres') env.DATABASE_URL = backend.postgresUrl
    else {
      delete env.DATABASE_URL
      env.SQLITE_PATH = backend.sqlitePath
    }
    const config = loadControlPlaneConfig(env)
    expect(config.isProduction).toBe(true)
    const running = await startControlPlane(config)
    try {
      expect((await fetch(`${running.url}/healthz`)).status).toBe(200)
      expect((await fetch(`${running.url}/readyz`)).status).toBe(200)
      const apiKey = secrets('control-plane.secrets.env').AUTH_API_KEYS
      expect((await fetch(`${running.url}/runs`, { headers: { authorization: `Bearer ${apiKey}` } })).status).toBe(200)
    } finally {
      await running.close()
      await backend.dispose()
    }
  })
})

describe('deploy/*.service', { timeout: SERVICE_TEST_TIMEOUT_MS }, () => {
  const units = [
    {
      file: 'acdp-registry.service',
      bin: BINS.registry,
      refusedExit: '2',
      configFiles: ['registry.toml'],
      environmentFiles: ['registry.secrets.env'],
      shutdownSeconds: SHUTDOWN_GRACE_MS / 1000,
    },
    {
      file: 'acdp-control-plane.service',
      bin: BINS.controlPlane,
      refusedExit: '78',
      configFiles: [],
      environmentFiles: ['control-plane.env', 'control-plane.secrets.env'],
      shutdownSeconds:
        Number(parseEnvironmentFile(readFileSync(join(DEPLOY, 'control-plane.env'), 'utf8')).SHUTDOWN_TIMEOUT_MS) /
        1000,
    },
  ]

  it.each(units)('$file runs the real bin with the example files', (unit) => {
    const service = parseUnitFile(readFileSync(join(DEPLOY, unit.file), 'utf8')).Service ?? {}
    const [node, script, ...args] = (service.ExecStart?.[0] ?? '').split(/\s+/)
    expect(node).toBe('/usr/bin/node')
    // /opt/acdp is where the guide installs this repository.
    expect(script?.startsWith('/opt/acdp/')).toBe(true)
    expect(join(REPOSITORY_ROOT, (script as string).slice('/opt/acdp/'.length))).toBe(unit.bin)
    expect(existsSync(unit.bin)).toBe(true)
    const configArgs = args.filter((a) => a.startsWith('/etc/acdp/')).map((a) => a.slice('/etc/acdp/'.length))
    expect(configArgs).toEqual(unit.configFiles)
    for (const name of unit.configFiles) expect(existsSync(join(DEPLOY, name))).toBe(true)
    const environmentFiles = (service.EnvironmentFile ?? []).map((f) => f.replace('/etc/acdp/', ''))
    expect(environmentFiles).toEqual(unit.environmentFiles)
    for (const name of environmentFiles) {
      expect(existsSync(join(DEPLOY, name)) || existsSync(join(secretsDir, name))).toBe(true)
    }
    expect(service.KillSignal).toEqual(['SIGTERM'])
    expect(timeSpanSeconds(service.TimeoutStopSec?.[0] ?? '0')).toBeGreaterThan(unit.shutdownSeconds)
    expect(service.RestartPreventExitStatus).toEqual([unit.refusedExit])
    expect(service.Restart).toEqual(['on-failure'])
  })

  it('pass systemd-analyze verify', async () => {
    if (!(await hasCommand('systemd-analyze'))) {
      console.warn('[deploy] systemd-analyze not installed: unit verification skipped')
      return
    }
    const files = units.map((u) => join(DEPLOY, u.file))
    const { stderr } = await run('systemd-analyze', ['verify', ...files])
    expect(stderr).toBe('')
  })
})

describe('backups', { timeout: SERVICE_TEST_TIMEOUT_MS }, () => {
  it('an SQLite online backup taken while the registry writes passes integrity_check and restores', async () => {
    if (!(await hasCommand('sqlite3'))) {
      console.warn('[deploy] sqlite3 not installed: the online backup command is not exercised')
      return
    }
    const backend = await openCrashBackend('sqlite', 'deploy-backup')
    const env = { ACDP_REGISTRY_STORAGE__BACKEND: 'sqlite', ACDP_REGISTRY_STORAGE__SQLITE_PATH: backend.sqlitePath }
    const { run: registry, baseUrl } = await startRegistryFromExample(env)
    const backupPath = join(backend.dir, 'registry-backup.db')
    const restoredPath = join(backend.dir, 'registry-restored.db')
    try {
      const before: string[] = []
      for (let i = 0; i < 20; i++) before.push(await publishOne(baseUrl, `before backup ${i}`))
      let writing = true
      let written = 0
      const writer = (async () => {
        while (writing) {
          await publishOne(baseUrl, `during backup ${written}`)
          written++
        }
      })()
      // The command of docs/deploy.md "Backups": sqlite3's online backup API, safe while the service writes.
      await run('sqlite3', [backend.sqlitePath, `.backup '${backupPath}'`])
      writing = false
      await writer
      expect(written).toBeGreaterThan(0)
      const { stdout } = await run('sqlite3', [backupPath, 'PRAGMA integrity_check'])
      expect(stdout.trim()).toBe('ok')
      copyFileSync(backupPath, restoredPath)
      const restored = await startRegistryFromExample({
        ...env,
        ACDP_REGISTRY_STORAGE__SQLITE_PATH: restoredPath,
      })
      try {
        for (const ctxId of before) {
          expect((await fetch(`${restored.baseUrl}/contexts/${encodeURIComponent(ctxId)}`)).status).toBe(200)
        }
      } finally {
        await restored.run.registry.close()
      }
    } finally {
      await registry.registry.close()
      await backend.dispose()
    }
  })

  it('pg_dump of a running registry restores with pg_restore into a database it serves from', async () => {
    if (testDatabaseUrl() === undefined || !(await hasCommand('pg_dump'))) {
      console.warn('[deploy] ACDP_TEST_DATABASE_URL unset or pg_dump missing: PostgreSQL backup not exercised')
      return
    }
    const source = await openCrashBackend('postgres', 'deploy-pgdump')
    const target = await openCrashBackend('postgres', 'deploy-pgrestore')
    const dump = join(source.dir, 'registry.dump')
    try {
      const { run: registry, baseUrl } = await startRegistryFromExample({
        ACDP_REGISTRY_STORAGE__POSTGRES_URL: source.postgresUrl,
      })
      const published: string[] = []
      try {
        for (let i = 0; i < 10; i++) published.push(await publishOne(baseUrl, `dumped ${i}`))
        await run('pg_dump', ['--format=custom', `--file=${dump}`, source.postgresUrl])
      } finally {
        await registry.registry.close()
      }
      await run('pg_restore', ['--no-owner', `--dbname=${target.postgresUrl}`, dump])
      const restored = await startRegistryFromExample({ ACDP_REGISTRY_STORAGE__POSTGRES_URL: target.postgresUrl })
      try {
        // No migration is pending on a restored database: it is the same schema version.
        expect(restored.run.registry.migrationsApplied).toEqual([])
        for (const ctxId of published) {
          expect((await fetch(`${restored.baseUrl}/contexts/${encodeURIComponent(ctxId)}`)).status).toBe(200)
        }
      } finally {
        await restored.run.registry.close()
      }
    } finally {
      await source.dispose()
      await target.dispose()
    }
  })
})
