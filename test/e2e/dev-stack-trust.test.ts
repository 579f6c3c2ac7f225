/**
 * Trust by default in the dev stack (issue 20): `acdp dev --demo` run as the command itself (in-process, real
 * loopback sockets, free ports, a temp data directory), with nothing configured beyond the command's flags. Every
 * demo context must verify with receipt, log inclusion and a witness cosignature — through `acdp get --verify
 * --json` and through the SDK (`verifyContext` of @acdp/protocol) — and the control plane's witness must hold a
 * head at the log's size. A restart on the same data directory reuses the keys (the old receipts still verify);
 * `--reset` renews them; a lost secrets file beside surviving data is refused. SQLite always; PostgreSQL (both
 * services, one schema each) when ACDP_TEST_DATABASE_URL is set. Every wait is bounded.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DidResolver, verifyContext } from '@acdp/protocol'
import { afterAll, describe, expect, it } from 'vitest'
import { runCli } from '../../packages/cli/src/cli.js'
import { captureIo } from '../../packages/cli/src/test-io.js'
import { openDatabase } from '../../packages/storage/src/index.js'
import { eventually as waitFor } from '../support/eventually.js'

const WAIT_MS = 20_000
const postgresUrl = process.env.ACDP_TEST_DATABASE_URL || undefined

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are untyped JSON in tests
type Json = any

const eventually = <T>(what: string, probe: () => Promise<T | undefined>): Promise<T> =>
  waitFor(what, probe, { timeoutMs: WAIT_MS })

async function getJson(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: Json }> {
  const response = await fetch(url, { headers, signal: AbortSignal.timeout(5000) })
  return { status: response.status, body: await response.json() }
}

/** A running `acdp dev`, as its output and data directory describe it. */
interface DevRun {
  registryUrl: string
  controlPlaneUrl: string
  secrets: Record<string, string>
  out(): string
  runId: string | undefined
  stop(): Promise<number>
}

const targets: Array<{ name: string; args: () => string[]; cleanup: () => Promise<void> }> = [
  { name: 'sqlite', args: () => [], cleanup: async () => {} },
]
if (postgresUrl !== undefined) {
  const prefix = `acdp_t_${randomBytes(5).toString('hex')}`
  targets.push({
    name: 'postgres',
    args: () => ['--postgres', postgresUrl, '--postgres-schema-prefix', prefix],
    cleanup: async () => {
      const database = await openDatabase({ kind: 'postgres', url: postgresUrl, max: 1 })
      try {
        for (const suffix of ['registry', 'control_plane']) {
          await database.pool!.query(`DROP SCHEMA IF EXISTS ${prefix}_${suffix} CASCADE`)
        }
      } finally {
        await database.close()
      }
    },
  })
}

describe.each(targets)('acdp dev: trust by default ($name)', (target) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'acdp-e2e-dev-trust-'))
  let running: DevRun | undefined

  afterAll(async () => {
    await running?.stop()
    await target.cleanup()
    rmSync(dataDir, { recursive: true, force: true })
  })

  /** Starts `acdp dev` and waits for its banner (and, with --demo, for the demo's console link). */
  async function startDev(extra: string[]): Promise<DevRun> {
    const io = captureIo({ cwd: dataDir })
    const args = ['dev', '--data-dir', dataDir, '--registry-port', '0', '--control-plane-port', '0']
    const exit = runCli([...args, '--log-level', 'warn', ...target.args(), ...extra], io)
    let settled = false
    void exit.finally(() => (settled = true))
    const ready = extra.includes('--demo') ? /Demo run (\S+) is in the console/ : /ACDP dev stack is up/
    const match = await eventually('the dev stack to come up', async () => {
      if (settled) throw new Error(`acdp dev exited early: ${io.out()}\n${io.err()}`)
      return ready.exec(io.out()) ?? undefined
    })
    const stack = JSON.parse(readFileSync(join(dataDir, 'dev-stack.json'), 'utf8')) as Record<string, string>
    return {
      registryUrl: stack['registry_url']!,
      controlPlaneUrl: stack['control_plane_url']!,
      secrets: JSON.parse(readFileSync(join(dataDir, 'dev-secrets.json'), 'utf8')) as Record<string, string>,
      out: io.out,
      runId: match[1],
      async stop() {
        io.interrupt()
        return exit
      },
    }
  }

  const apiGet = (path: string) =>
    getJson(`${running!.controlPlaneUrl}${path}`, {
      authorization: `Bearer ${running!.secrets['control_plane_api_key']}`,
    })

  /** The witness DID the banner names (a did:key of the dev witness key). */
  const witnessDid = () => /witness (did:key:z\w+)/.exec(running!.out())?.[1] as string

  /** The registry's receipt key as its DID document (read from its own URL) publishes it. */
  const receiptKey = async () => {
    const { body } = await getJson(`${running!.registryUrl}/.well-known/did.json`)
    expect(body.id).toBe('did:web:localhost')
    return JSON.stringify(body.verificationMethod)
  }

  /** `acdp get --verify --json`: the registry_receipt, log_inclusion and witness_signatures checks. */
  async function cliTrustChecks(ctxId: string): Promise<Record<string, { ok: boolean; detail: string }>> {
    const io = captureIo({ cwd: dataDir })
    const args = ['get', ctxId, '--verify', '--json', '--data-dir', dataDir, '--trust-witness', witnessDid()]
    const code = await runCli(args, io)
    expect(code, io.err()).toBe(0)
    const checks = JSON.parse(io.out()).verification.checks as Array<{ name: string; ok: boolean; detail: string }>
    return Object.fromEntries(checks.map((check) => [check.name, check]))
  }

  /** The SDK's verifyContext over the bundle a consumer assembles from the dev registry. */
  async function sdkTrustChecks(ctxId: string, treeSize: number, witnessSignatures: unknown) {
    const registryUrl = running!.registryUrl
    // did:web:localhost's document is read from the registry URL the consumer was given (as the CLI does).
    const resolver = new DidResolver({
      fetchDidDocument: async (url) => {
        expect(url.href).toBe('https://localhost/.well-known/did.json')
        const response = await fetch(`${registryUrl}/.well-known/did.json`)
        return { status: response.status, body: new Uint8Array(await response.arrayBuffer()) }
      },
    })
    const envelope = await getJson(`${registryUrl}/contexts/${encodeURIComponent(ctxId)}`)
    expect(envelope.status).toBe(200)
    const proof = await getJson(`${registryUrl}/log/proof?ctx_id=${encodeURIComponent(ctxId)}&tree_size=${treeSize}`)
    expect(proof.status).toBe(200)
    const report = await verifyContext(
      { ...envelope.body, log_inclusion: proof.body, witness_signatures: witnessSignatures },
      { resolver, evidence: { now: new Date(Date.now() + 60_000), trustedWitnesses: [witnessDid()] } },
    )
    return { report, byName: Object.fromEntries(report.checks.map((check) => [check.name, check])) }
  }

  let demoContexts: string[] = []
  let firstKeys: { receipt: string; witness: string; seeds: string } | undefined

  it('after acdp dev --demo every demo context verifies with receipt, inclusion and a witness cosignature', async () => {
    running = await startDev(['--demo'])
    expect(running.out()).toMatch(/trust layer {5}receipts, lineage-head receipts, transparency log, lifecycle/)
    expect(running.out()).toContain(target.name === 'postgres' ? 'PostgreSQL schemas acdp_t_' : '(SQLite files;')
    const run = await apiGet(`/runs/${running.runId}`)
    expect(run.status).toBe(200)
    const logSize = run.body.contextsCount as number
    expect(logSize).toBeGreaterThan(5)
    const lineage = await apiGet(`/runs/${running.runId}/lineage`)
    demoContexts = (lineage.body.nodes as Array<{ ctxId: string }>).map((node) => node.ctxId)
    expect(demoContexts).toHaveLength(logSize)

    // The registry collects the control plane's cosignature of the whole demo log on its own (no test poll).
    const witnessed = await eventually('a cosigned checkpoint over the whole demo log', async () => {
      const { body } = await getJson(`${running!.registryUrl}/log/checkpoint`)
      return body.log_checkpoint?.tree_size === logSize && body.witness_signatures?.length > 0 ? body : undefined
    })
    expect(witnessed.witness_signatures[0].witness_id).toBe(witnessDid())
    const state = await apiGet('/registries/localhost/log-witness')
    expect(state.body).toMatchObject({ treeSize: logSize, consecutiveFailures: 0, alert: null })

    for (const ctxId of demoContexts) {
      const cli = await cliTrustChecks(ctxId)
      expect(cli['registry_receipt'], ctxId).toMatchObject({ ok: true })
      expect(cli['log_inclusion'], ctxId).toMatchObject({ ok: true })
      expect(cli['witness_signatures'], ctxId).toMatchObject({ ok: true, detail: `1-witnessed: ${witnessDid()}` })
      const sdk = await sdkTrustChecks(ctxId, logSize, witnessed.witness_signatures)
      expect(sdk.byName['registry_receipt'], ctxId).toMatchObject({ ok: true })
      expect(sdk.byName['log_inclusion'], ctxId).toMatchObject({ ok: true })
      expect(sdk.byName['witness_signatures'], ctxId).toMatchObject({ ok: true })
      expect(sdk.report.ok, ctxId).toBe(true)
    }
    const seeds = `${running.secrets['receipt_key_seed']}|${running.secrets['witness_key_seed']}`
    firstKeys = { receipt: await receiptKey(), witness: witnessDid(), seeds }
  }, 90_000)

  it('acdp log audit verifies the dev log and its cosignature', async () => {
    const io = captureIo({ cwd: dataDir })
    const code = await runCli(['log', 'audit', running!.registryUrl, '--count', '1', '--interval', '0'], io)
    expect(io.out()).toMatch(
      /checkpoint verified: size \d+, root sha256:[0-9a-f]{64}; 1 witness cosignature\(s\) verify/,
    )
    expect(code).toBe(0)
  })

  it('a restart on the same data directory reuses the keys: the demo receipts still verify', async () => {
    expect(await running!.stop()).toBe(0)
    running = await startDev([])
    expect(running.out()).toContain('reused')
    expect(`${running.secrets['receipt_key_seed']}|${running.secrets['witness_key_seed']}`).toBe(firstKeys!.seeds)
    expect(await receiptKey()).toBe(firstKeys!.receipt)
    expect(witnessDid()).toBe(firstKeys!.witness)
    const cli = await cliTrustChecks(demoContexts[0]!)
    expect(cli['registry_receipt']).toMatchObject({ ok: true })
    expect(cli['log_inclusion']).toMatchObject({ ok: true })
    expect(cli['witness_signatures']).toMatchObject({ ok: true })
  }, 60_000)

  it('refuses to start when the dev secrets are lost but the data survives', async () => {
    expect(await running!.stop()).toBe(0)
    running = undefined
    const saved = readFileSync(join(dataDir, 'dev-secrets.json'), 'utf8')
    rmSync(join(dataDir, 'dev-secrets.json'))
    const io = captureIo({ cwd: dataDir })
    const args = ['dev', '--data-dir', dataDir, '--registry-port', '0', '--control-plane-port', '0', ...target.args()]
    const code = await runCli(args, io)
    expect(io.err()).toMatch(/dev-secrets\.json is missing but the registry's data survives.*acdp dev --reset/)
    expect(code).toBe(1)
    // Nothing was generated in its place.
    expect(() => readFileSync(join(dataDir, 'dev-secrets.json'))).toThrow(/ENOENT/)
    writeFileSync(join(dataDir, 'dev-secrets.json'), saved, { mode: 0o600 })
  }, 60_000)

  it('--reset renews the keys together with the data', async () => {
    running = await startDev(['--reset', '--demo'])
    expect(running.out()).toContain('fresh: keys and dev secrets generated')
    expect(`${running.secrets['receipt_key_seed']}|${running.secrets['witness_key_seed']}`).not.toBe(firstKeys!.seeds)
    expect(await receiptKey()).not.toBe(firstKeys!.receipt)
    expect(witnessDid()).not.toBe(firstKeys!.witness)
    // The old contexts went with the old data.
    const old = await getJson(`${running.registryUrl}/contexts/${encodeURIComponent(demoContexts[0]!)}`)
    expect(old.status).toBe(404)
    const lineage = await apiGet(`/runs/${running.runId}/lineage`)
    const fresh = (lineage.body.nodes as Array<{ ctxId: string }>)[0]!.ctxId
    await eventually('a cosigned checkpoint of the new log', async () => {
      const { body } = await getJson(`${running!.registryUrl}/log/checkpoint`)
      return body.witness_signatures?.[0]?.witness_id === witnessDid() ? body : undefined
    })
    const cli = await cliTrustChecks(fresh)
    expect(cli['registry_receipt']).toMatchObject({ ok: true })
    expect(cli['witness_signatures']).toMatchObject({ ok: true, detail: `1-witnessed: ${witnessDid()}` })
  }, 60_000)
})
