/**
 * The deployment examples of deploy/ and the commands of docs/deploy.md, exercised:
 *   - deploy/generate-secrets.sh writes both secrets files and the key files (owner-only) with values the services
 *     accept (the whole deployment, both services wired together, is started by deploy-stack.test.ts);
 *   - deploy/registry.toml + its secrets start the registry through its real CLI path (PostgreSQL when
 *     ACDP_TEST_DATABASE_URL is set, else the same file with the storage switched to SQLite by environment);
 *   - deploy/control-plane.env + its secrets start the control plane through the real config loader;
 *   - the systemd units run the project's pinned Node.js 24 and the real bins with the example files, outlast the
 *     services' own shutdown deadlines, do not restart on a refused configuration, and pass `systemd-analyze
 *     verify` when available (on copies with the install directory /opt/acdp replaced by this checkout);
 *   - the SQLite online backup command, taken while the registry is writing, yields a file that passes
 *     `PRAGMA integrity_check` and, restored, serves every context acknowledged before the backup began;
 *   - pg_dump / pg_restore of a running registry's database restores into a database the registry serves from;
 *   - two registry instances starting at once on one PostgreSQL database apply each migration once (the
 *     advisory lock of docs/deploy.md "Upgrades").
 */
import { execFile } from 'node:child_process'
import { createPrivateKey } from 'node:crypto'
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { request as httpsRequest } from 'node:https'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { testDatabaseUrl } from '@acdp/storage'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig as loadControlPlaneConfig } from '../../packages/control-plane/src/core/config.js'
import { createTestPki } from '../../packages/protocol/test/support/test-ca.js'
import { startControlPlane } from '../../packages/control-plane/src/start.js'
import { type CliRun, runRegistryCli, SHUTDOWN_GRACE_MS } from '../../packages/registry/src/cli.js'
import { didKeyProducer, minimalUnsigned, signRequest } from '../../packages/registry/test/support/registry-harness.js'
import { type CrashBackend, openCrashBackend } from '../crash/backends.js'
import { BINS, REPOSITORY_ROOT } from '../crash/service-process.js'
import { parseEnvironmentFile, parseUnitFile, timeSpanSeconds } from './deploy-files.js'

const run = promisify(execFile)
/** Starting services on PostgreSQL (migrations included) takes seconds on a busy machine. */
const SLOW = { timeout: 120_000 }
const DEPLOY = join(REPOSITORY_ROOT, 'deploy')
/** The pinned Node.js of this checkout (the `node` dev dependency's binary), which the units run. */
const PINNED_NODE = join(REPOSITORY_ROOT, 'node_modules', 'node', 'bin', 'node')
const hasCommand = async (name: string) =>
  run('sh', ['-c', `command -v ${name}`]).then(
    () => true,
    () => false,
  )

let secretsDir: string
beforeAll(async () => {
  secretsDir = mkdtempSync(join(tmpdir(), 'acdp-deploy-secrets-'))
  await run('bash', [join(DEPLOY, 'generate-secrets.sh'), secretsDir])
})
afterAll(() => {
  rmSync(secretsDir, { recursive: true, force: true })
})

const secrets = (name: string) => parseEnvironmentFile(readFileSync(join(secretsDir, name), 'utf8'))

/**
 * Starts the registry the way the systemd unit does: `--config deploy/registry.toml`, secrets in the env, the
 * receipt key at the generated path. These tests run the registry alone, so its webhook (whose receiver must
 * resolve at startup) and its witness are switched off here; deploy-stack.test.ts runs them with the control plane.
 */
async function startRegistryFromExample(env: Record<string, string>): Promise<{ run: CliRun; baseUrl: string }> {
  const exits: number[] = []
  const errors: string[] = []
  const started = await runRegistryCli(['--config', join(DEPLOY, 'registry.toml')], {
    env: {
      NODE_ENV: 'production',
      ...secrets('registry.secrets.env'),
      ACDP_REGISTRY_REGISTRY__PORT: '0',
      ACDP_REGISTRY_REGISTRY__LOG_LEVEL: 'silent',
      ACDP_REGISTRY_RECEIPT__SIGNING_KEY_PATH: join(secretsDir, 'keys', 'registry-receipt.seed'),
      ACDP_REGISTRY_WEBHOOK__ENABLED: 'false',
      ACDP_REGISTRY_WITNESSES: '[]',
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

describe('deploy/generate-secrets.sh', SLOW, () => {
  it('writes owner-only secrets and key files, distinct Ed25519 keys, and never overwrites them', async () => {
    for (const name of [
      'registry.secrets.env',
      'control-plane.secrets.env',
      'keys/registry-receipt.seed',
      'keys/registry-webhook.secret',
    ]) {
      expect(statSync(join(secretsDir, name)).mode & 0o777).toBe(0o600)
    }
    expect(statSync(join(secretsDir, 'keys')).mode & 0o777).toBe(0o700)
    // The registry signs its webhooks with the secret its enrollment holds (acdp registries enroll --secret-file).
    expect(secrets('registry.secrets.env').ACDP_REGISTRY_WEBHOOK__SECRET).toBe(
      readFileSync(join(secretsDir, 'keys', 'registry-webhook.secret'), 'utf8').trim(),
    )
    const cp = secrets('control-plane.secrets.env')
    expect(Buffer.from(cp.SECRETS_ENCRYPTION_KEY ?? '', 'base64')).toHaveLength(32)
    expect(Buffer.from(readFileSync(join(secretsDir, 'keys', 'registry-receipt.seed'), 'utf8'), 'base64')).toHaveLength(
      32,
    )
    const pems = [cp.JWT_PRIVATE_KEY_PEM ?? '', cp.WITNESS_SIGNING_PRIVATE_KEY_PEM ?? '']
    for (const pem of pems) expect(createPrivateKey(pem.replace(/\\n/g, '\n')).asymmetricKeyType).toBe('ed25519')
    expect(pems[0]).not.toBe(pems[1])
    await expect(run('bash', [join(DEPLOY, 'generate-secrets.sh'), secretsDir])).rejects.toThrow(/not overwriting/)
  })
})

describe('deploy/registry.toml', SLOW, () => {
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

  it('serves HTTPS directly with registry.tls.* set in the environment', async () => {
    const pki = createTestPki({ dnsNames: ['registry.example.com'], ipAddresses: ['127.0.0.1'] })
    const { backend, env } = await registryStorage('deploy-tls')
    writeFileSync(join(backend.dir, 'cert.pem'), pki.certPem)
    writeFileSync(join(backend.dir, 'key.pem'), pki.keyPem)
    const { run: registry, baseUrl } = await startRegistryFromExample({
      ...env,
      ACDP_REGISTRY_REGISTRY__TLS__ENABLED: 'true',
      ACDP_REGISTRY_REGISTRY__TLS__CERT_PATH: join(backend.dir, 'cert.pem'),
      ACDP_REGISTRY_REGISTRY__TLS__KEY_PATH: join(backend.dir, 'key.pem'),
    })
    try {
      const status = await new Promise<number>((resolve, reject) => {
        const req = httpsRequest(`${baseUrl.replace('http:', 'https:')}/healthz`, { ca: pki.caPem }, (res) => {
          res.resume()
          res.on('end', () => resolve(res.statusCode ?? 0))
        })
        req.on('error', reject)
        req.end()
      })
      expect(status).toBe(200)
    } finally {
      await registry.registry.close()
      await backend.dispose()
    }
  })
})

describe('upgrades', SLOW, () => {
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

describe('deploy/control-plane.env', SLOW, () => {
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
      // The install directory is this checkout (the example's is /opt/acdp).
      CONSOLE_ASSETS_DIR: join(REPOSITORY_ROOT, 'packages', 'console', 'dist'),
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

describe('deploy/*.service', SLOW, () => {
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
    // /opt/acdp is where the guide installs this repository; the node binary is the pinned `node` dev dependency.
    expect(node?.startsWith('/opt/acdp/node_modules/')).toBe(true)
    expect(join(REPOSITORY_ROOT, (node as string).slice('/opt/acdp/'.length))).toBe(PINNED_NODE)
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

  it('run a Node.js 24 binary', async () => {
    const { stdout } = await run(PINNED_NODE, ['--version'])
    expect(stdout.trim()).toMatch(/^v24\./)
  })

  it('pass systemd-analyze verify', async () => {
    if (!(await hasCommand('systemd-analyze'))) {
      console.warn('[deploy] systemd-analyze not installed: unit verification skipped')
      return
    }
    // systemd-analyze checks that ExecStart's binary exists: verify copies installed at this checkout.
    const dir = mkdtempSync(join(tmpdir(), 'acdp-deploy-units-'))
    try {
      const files = units.map((u) => {
        const copy = join(dir, u.file)
        writeFileSync(copy, readFileSync(join(DEPLOY, u.file), 'utf8').replaceAll('/opt/acdp/', `${REPOSITORY_ROOT}/`))
        return copy
      })
      const { stderr } = await run('systemd-analyze', ['verify', ...files])
      expect(stderr).toBe('')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('backups', SLOW, () => {
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
