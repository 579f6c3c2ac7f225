import { existsSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { describe, expect, it } from 'vitest'
import { type CliProcess, runRegistryCli } from './cli.js'

function fakeProcess(env: NodeJS.ProcessEnv = {}) {
  const out = {
    stdout: '',
    stderr: '',
    exits: [] as number[],
    stop: undefined as ((signal: string) => void) | undefined,
  }
  const proc: CliProcess = {
    env,
    stdout: (t) => {
      out.stdout += t
    },
    stderr: (t) => {
      out.stderr += t
    },
    exit: (code) => {
      out.exits.push(code)
    },
    onStopSignal: (handler) => {
      out.stop = handler
    },
  }
  return { proc, out }
}

describe('acdp-registry', () => {
  it('refuses a bad configuration with exit 2 and one line, before touching the database', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'acdp-cli-'))
    const file = join(dir, 'registry.toml')
    const dbPath = join(dir, 'data', 'registry.db')
    writeFileSync(file, `[registry]\nauthority = "did:web:bad"\n[storage]\nsqlite_path = "${dbPath}"\n`)
    const { proc, out } = fakeProcess()
    expect(await runRegistryCli(['--config', file], proc)).toBeUndefined()
    expect(out.exits).toEqual([2])
    expect(out.stderr.trimEnd().split('\n')).toHaveLength(1)
    expect(out.stderr).toMatch(/^acdp-registry: refusing to start: registry\.authority/)
    expect(existsSync(dbPath)).toBe(false)
  })

  it('refuses unknown arguments the same way', async () => {
    const { proc, out } = fakeProcess()
    await runRegistryCli(['--port', '1'], proc)
    expect(out.exits).toEqual([2])
    expect(out.stderr).toMatch(/unknown argument "--port"/)
  })

  it('starts from ACDP_REGISTRY_CONFIG plus environment, serves, and exits 0 after draining on a stop signal', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'acdp-cli-'))
    const file = join(dir, 'registry.toml')
    writeFileSync(file, `[registry]\nauthority = "registry.example.com"\nport = 0\nlog_level = "silent"\n`)
    const { proc, out } = fakeProcess({
      ACDP_REGISTRY_CONFIG: file,
      ACDP_REGISTRY_STORAGE__SQLITE_PATH: join(dir, 'registry.db'),
    })
    const run = await runRegistryCli([], proc)
    if (!run) throw new Error('the registry did not start')
    const { port } = run.registry.app.server.address() as { port: number }
    const health = await fetch(`http://127.0.0.1:${port}/healthz`)
    expect(health.status).toBe(200)
    expect(existsSync(join(dir, 'registry.db'))).toBe(true)
    out.stop?.('SIGTERM')
    await run.stopped
    expect(out.exits).toEqual([0])
  })

  it('log verify: exit 0 on an intact log, 1 with the reason after tampering, 2 without a log', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'acdp-cli-'))
    const dbPath = join(dir, 'registry.db')
    const file = join(dir, 'registry.toml')
    const seed = Buffer.alloc(32, 7).toString('base64')
    writeFileSync(
      file,
      `[registry]\nauthority = "registry.example.com"\nport = 0\nlog_level = "silent"\n` +
        `[storage]\nsqlite_path = "${dbPath}"\n[receipt]\nsigning_key_seed_b64 = "${seed}"\n[log]\nenabled = true\n`,
    )
    const { proc: serveProc, out: serveOut } = fakeProcess()
    const run = await runRegistryCli(['--config', file], serveProc)
    if (!run) throw new Error('the registry did not start')
    // Sign a checkpoint over the empty log, then stop.
    expect((await run.registry.app.inject({ method: 'GET', url: '/log/checkpoint' })).statusCode).toBe(200)
    serveOut.stop?.('SIGTERM')
    await run.stopped

    const ok = fakeProcess()
    await runRegistryCli(['log', 'verify', '--config', file], ok.proc)
    expect(ok.out.exits).toEqual([0])
    expect(ok.out.stdout).toMatch(/intact: 0 leaves; last signed checkpoint at tree size 0/)

    const db = new DatabaseSync(dbPath)
    // A rewritten root under the old signature.
    db.prepare(
      "update log_checkpoint set checkpoint_json = replace(checkpoint_json, 'sha256:e3b0', 'sha256:f3b0')",
    ).run()
    db.close()
    const bad = fakeProcess()
    await runRegistryCli(['log', 'verify', '--config', file], bad.proc)
    expect(bad.out.exits).toEqual([1])
    expect(bad.out.stderr).toMatch(
      /FAILED its self-check at 0 leaves: the signature of the last signed checkpoint does not verify/,
    )

    const none = fakeProcess({ ACDP_REGISTRY_LOG__ENABLED: 'false' })
    await runRegistryCli(['log', 'verify', '--config', file], none.proc)
    expect(none.out.exits).toEqual([2])
  })

  it('refuses to start (exit 2, nothing bound) with lifecycle off over a store holding lifecycle state', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'acdp-cli-'))
    const dbPath = join(dir, 'registry.db')
    const file = join(dir, 'registry.toml')
    const write = (lifecycle: boolean) =>
      writeFileSync(
        file,
        `[registry]\nauthority = "registry.example.com"\nport = 0\nlog_level = "silent"\n` +
          `[storage]\nsqlite_path = "${dbPath}"\n[lifecycle]\nenabled = ${lifecycle}\n`,
      )
    write(true)
    const first = fakeProcess()
    const run = await runRegistryCli(['--config', file], first.proc)
    if (!run) throw new Error('the registry did not start')
    // Give the store lifecycle state, as an accepted retraction would.
    await run.registry.deps.store.insertContext({
      ctxId: 'acdp://registry.example.com/00000000-0000-4000-8000-000000000001',
      tenantId: 'default',
      lineageId: `lin:sha256:${'a'.repeat(64)}`,
      version: 1,
      supersedes: null,
      agentId: 'did:web:agents.example.com:p',
      contextType: 'data_snapshot',
      visibility: 'public',
      audience: [],
      title: 't',
      summary: null,
      description: null,
      domain: null,
      schemaUri: null,
      tags: [],
      derivedFrom: [],
      contentHash: `sha256:${'b'.repeat(64)}`,
      createdAt: '2026-01-01T00:00:00.000Z',
      createdAtMs: 0,
      expiresAtMs: null,
      dataPeriodStartMs: null,
      dataPeriodEndMs: null,
      bodyText: '{}',
      registryReceipt: null,
      logLeaf: null,
    })
    expect(
      await run.registry.deps.store.appendLifecycleEvent({
        ctxId: 'acdp://registry.example.com/00000000-0000-4000-8000-000000000001',
        tenantId: 'default',
        expectedCount: 0,
        eventsJson: '[{"event_type":"retracted"}]',
        retracted: true,
      }),
    ).toBe(true)
    first.out.stop?.('SIGTERM')
    await run.stopped

    write(false)
    const second = fakeProcess()
    expect(await runRegistryCli(['--config', file], second.proc)).toBeUndefined()
    expect(second.out.exits).toEqual([2])
    expect(second.out.stderr).toMatch(
      /^acdp-registry: refusing to start: lifecycle\.enabled = false but the store holds/,
    )
  })
})
