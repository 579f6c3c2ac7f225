/**
 * The trust loop end to end with our own services (issue 12): this repository's registry (receipts and
 * transparency log on, `[[witnesses]]` naming our control plane) and two of our control planes — the witness
 * (log witness + cosigning) and an observer (log witness + quorum trusting the witness) — on real loopback
 * sockets. Service-to-service traffic is https through the production SSRF-safe outbound client: each service
 * is fronted by a TLS terminator with a test-CA certificate, and the did:web hosts `*.trust.test` resolve to
 * 127.0.0.1 through the client's injected DNS lookup (port-less hosts are routed to their terminator's port).
 * The test itself talks plain http to the listeners.
 *
 * Each step of the loop is asserted: publishes land in the log; the witness follows it (its state shows the
 * registry's tree size and root, consistency proven on growth) and cosigns; the registry collects the
 * cosignature and serves it in `/log/checkpoint` `witness_signatures`, which verifies with @acdp/protocol; the
 * observer's quorum counts it; a consumer verifies receipt, inclusion and cosignature of a published context.
 */
import { generateKeyPairSync } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Server as TlsServer } from 'node:tls'
import {
  computeLogLeafHash,
  buildLogLeaf,
  createProducer,
  createProducerKey,
  DidResolver,
  formatLogId,
  type LogCheckpoint,
  type LogCosignature,
  type OutboundClient,
  verifyCheckpoint,
  verifyContext,
  verifyCosignature,
  verifyLogConsistency,
  verifyLogInclusion,
} from '@acdp/protocol'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli } from '../../packages/cli/src/cli.js'
import { captureIo } from '../../packages/cli/src/test-io.js'
import { loadConfig as loadControlPlaneConfig } from '../../packages/control-plane/src/core/config.js'
import type { ControlPlaneDeps } from '../../packages/control-plane/src/core/deps.js'
import { type RunningControlPlane, startControlPlane } from '../../packages/control-plane/src/start.js'
import { createTestPki, type TestPki } from '../../packages/protocol/test/support/test-ca.js'
import { resolveConfig } from '../../packages/registry/src/core/config.js'
import { type RunningRegistry, startRegistry } from '../../packages/registry/src/start.js'
import { eventually as waitFor } from '../support/eventually.js'
import { portOf, routedOutbound, startTlsTerminator } from '../support/loopback-tls.js'

const REGISTRY_HOST = 'registry.trust.test'
const WITNESS_HOST = 'witness.trust.test'
const OBSERVER_HOST = 'observer.trust.test'
const REGISTRY_DID = `did:web:${REGISTRY_HOST}`
const WITNESS_DID = `did:web:${WITNESS_HOST}`
const LOG_ID = formatLogId(REGISTRY_DID, '1')
const ADMIN_KEY = 'trust-loop-admin-key-0123456789'
const USER_KEY = 'trust-loop-user-key-0123456789ab'
const WAIT_MS = 15_000

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are untyped JSON in tests
type Json = any

const eventually = <T>(what: string, probe: () => Promise<T | undefined>): Promise<T> =>
  waitFor(what, probe, { timeoutMs: WAIT_MS })
/** A consumer's DID resolver reading DID documents through `outbound` (did:key resolves without a fetch). */
function consumerResolver(outbound: OutboundClient): DidResolver {
  return new DidResolver({
    fetchDidDocument: async (url) => {
      const response = await outbound.request(url, { headers: { accept: 'application/did+json' } })
      return { status: response.status, body: response.body }
    },
  })
}

/** A control plane clock that the test can move forward (polls are due one interval apart). */
function steppableClock(): { clock: () => Date; advance(ms: number): void } {
  let offset = 0
  return {
    clock: () => new Date(Date.now() + offset),
    advance(ms) {
      offset += ms
    },
  }
}

describe('trust loop: our registry, our control plane as its witness, an observer counting quorum', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'acdp-trust-loop-'))
  const ports = new Map<string, number>()
  const terminators: TlsServer[] = []
  const outbounds: OutboundClient[] = []
  let pki: TestPki
  let registry: RunningRegistry
  let registryUrl: string
  let witness: RunningControlPlane
  let observer: RunningControlPlane
  const witnessClock = steppableClock()
  const observerClock = steppableClock()
  const published: string[] = []
  let consumerOutbound: OutboundClient
  let resolver: DidResolver

  const outbound = () => {
    const client = routedOutbound(pki, ports)
    outbounds.push(client)
    return client
  }
  const getJson = async (
    url: string,
    headers: Record<string, string> = {},
  ): Promise<{ status: number; body: Json }> => {
    const response = await fetch(url, { headers, signal: AbortSignal.timeout(5000) })
    return { status: response.status, body: await response.json() }
  }
  const asUser = { authorization: `Bearer ${USER_KEY}` }
  const poll = async (plane: RunningControlPlane, clock: { advance(ms: number): void }) => {
    clock.advance(2000)
    return plane.app.witness.poller!.pollDue()
  }
  const witnessState = async (plane: RunningControlPlane): Promise<Json> => {
    const { status, body } = await getJson(`${plane.url}/registries/${REGISTRY_HOST}/log-witness`, asUser)
    expect(status).toBe(200)
    return body
  }
  const checkpointContext = () => ({ authority: REGISTRY_HOST, resolveKey: resolver.resolveKey.bind(resolver) })

  async function startPlane(name: string, env: Record<string, string>, clock: () => Date) {
    const config = loadControlPlaneConfig({
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      HOST: '127.0.0.1',
      PORT: '0',
      SQLITE_PATH: join(dataDir, `${name}.db`),
      AUTH_API_KEYS: USER_KEY,
      AUTH_ADMIN_API_KEYS: ADMIN_KEY,
      SECRETS_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
      WEBHOOK_SECRET: 'trust-loop-webhook-secret-0123456789',
      LOG_WITNESS_ENABLED: 'true',
      LOG_WITNESS_SCHEDULE: 'false',
      LOG_WITNESS_INTERVAL_SECONDS: '1',
      ...env,
    })
    const overrides: Partial<ControlPlaneDeps> = { outbound: outbound(), clock }
    const plane = await startControlPlane(config, overrides)
    const enrolled = await fetch(`${plane.url}/registries/enroll`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        authority: REGISTRY_HOST,
        baseUrl: `https://${REGISTRY_HOST}`,
        registryDid: REGISTRY_DID,
      }),
    })
    expect(enrolled.status).toBe(200)
    return plane
  }

  beforeAll(async () => {
    pki = createTestPki(
      { dnsNames: [REGISTRY_HOST, WITNESS_HOST, OBSERVER_HOST], ipAddresses: ['127.0.0.1'] },
      'ACDP trust loop test CA',
    )
    const registryConfig = resolveConfig(
      {
        registry: { authority: REGISTRY_HOST, base_url: `https://${REGISTRY_HOST}`, log_level: 'silent' },
        storage: { backend: 'sqlite', sqlite_path: join(dataDir, 'registry.db') },
        receipt: { signing_key_seed_b64: Buffer.alloc(32, 0x2a).toString('base64') },
        log: { enabled: true, instance: '1' },
        witnesses: [{ did: WITNESS_DID, url: `https://${WITNESS_HOST}/log/witness`, poll_seconds: 1 }],
      },
      { nodeEnv: 'test' },
    )
    registry = await startRegistry(registryConfig, { outbound: outbound() })
    await registry.app.listen({ host: '127.0.0.1', port: 0 })
    registryUrl = `http://127.0.0.1:${portOf(registry.app.server)}`
    const registryTls = await startTlsTerminator(pki, portOf(registry.app.server))
    terminators.push(registryTls)
    ports.set(REGISTRY_HOST, portOf(registryTls))

    const witnessKey = generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString()
    witness = await startPlane(
      'witness',
      {
        WITNESS_COSIGNING_ENABLED: 'true',
        WITNESS_ID: WITNESS_DID,
        PUBLIC_HOST: WITNESS_HOST,
        WITNESS_SIGNING_PRIVATE_KEY_PEM: witnessKey,
      },
      witnessClock.clock,
    )
    const witnessTls = await startTlsTerminator(pki, portOf(witness.app.server))
    terminators.push(witnessTls)
    ports.set(WITNESS_HOST, portOf(witnessTls))

    observer = await startPlane(
      'observer',
      {
        WITNESS_QUORUM_ENABLED: 'true',
        WITNESS_QUORUM_TRUSTED: WITNESS_DID,
        WITNESS_QUORUM_MIN_WITNESSES: '1',
      },
      observerClock.clock,
    )

    consumerOutbound = outbound()
    resolver = consumerResolver(consumerOutbound)

    const producer = createProducer({ registryUrl, key: createProducerKey() })
    for (let i = 0; i < 3; i += 1) {
      const result = await producer.publish({ title: `trust loop ${i}`, type: 'analysis' })
      expect(result.status).toBe(201)
      published.push(result.ctxId)
    }
  })

  afterAll(async () => {
    await observer?.close()
    await witness?.close()
    await registry?.close()
    for (const server of terminators) server.close()
    for (const client of outbounds) await client.close()
    rmSync(dataDir, { recursive: true, force: true })
  })

  it('serves a signed checkpoint over the three publishes that verifies against the registry’s DID document', async () => {
    const { status, body } = await getJson(`${registryUrl}/log/checkpoint`)
    expect(status).toBe(200)
    // No witness has cosigned yet: the checkpoint is bare (never an empty witness_signatures array).
    expect(body.log_checkpoint).toBeUndefined()
    const verified = await verifyCheckpoint(body, { ...checkpointContext(), now: new Date() })
    expect(verified.checkpoint).toMatchObject({ log_id: LOG_ID, tree_size: 3 })
  })

  it('the witness follows the registry’s log: its state shows the registry’s tree size and root', async () => {
    expect(await poll(witness, witnessClock)).toBe(1)
    const state = await witnessState(witness)
    const { body: checkpoint } = await getJson(`${registryUrl}/log/checkpoint`)
    const served: LogCheckpoint = checkpoint.log_checkpoint ?? checkpoint
    expect(state).toMatchObject({
      authority: REGISTRY_HOST,
      logId: LOG_ID,
      treeSize: 3,
      rootHash: served.root_hash,
      consecutiveFailures: 0,
      lastFailure: null,
      alert: null,
    })
  })

  it('the witness cosigns the checkpoint and publishes it at /log/witness and its DID document', async () => {
    const { status, body } = await getJson(`${witness.url}/log/witness?log_id=${encodeURIComponent(LOG_ID)}`)
    expect(status).toBe(200)
    expect(body.witness_id).toBe(WITNESS_DID)
    const [latest] = body.witness_signatures as LogCosignature[]
    expect(latest).toMatchObject({ witness_id: WITNESS_DID, witnessed_checkpoint: { log_id: LOG_ID, tree_size: 3 } })
    const did = await getJson(`${witness.url}/.well-known/did.json`)
    expect(did.body.id).toBe(WITNESS_DID)
  })

  it('the registry collects the cosignature and serves it in witness_signatures; it verifies with @acdp/protocol', async () => {
    const envelope = await eventually('a witnessed checkpoint', async () => {
      const { body } = await getJson(`${registryUrl}/log/checkpoint`)
      return body.witness_signatures === undefined ? undefined : body
    })
    const verified = await verifyCheckpoint(envelope.log_checkpoint, { ...checkpointContext(), now: new Date() })
    expect(verified.checkpoint.tree_size).toBe(3)
    expect(envelope.witness_signatures).toHaveLength(1)
    const { cosignature } = await verifyCosignature(envelope.witness_signatures[0], {
      checkpoint: verified.checkpoint,
      resolveKey: resolver.resolveKey.bind(resolver),
      isTrustedWitness: (id) => id === WITNESS_DID,
      now: new Date(Date.now() + 60_000),
    })
    expect(cosignature.witness_id).toBe(WITNESS_DID)
    expect(cosignature.signature.key_id).toBe(`${WITNESS_DID}#witness-key-1`)
  })

  it('the observer’s quorum counts the witness’s cosignature aggregated by the registry', async () => {
    expect(await poll(observer, observerClock)).toBe(1)
    const state = await witnessState(observer)
    expect(state).toMatchObject({ treeSize: 3, alert: null, lastFailure: null })
    expect(state.checkpoints[0]).toMatchObject({ treeSize: 3, witnessedCount: 1, meetsQuorum: true, quorumMin: 1 })
    // Who: the witness, counted. (The observer does not cosign, so no cosigner of its own.)
    expect(state.checkpoints[0].cosigners).toEqual([{ name: WITNESS_DID, standing: 'counted' }])
  })

  it('a consumer verifies a published context’s receipt, its log inclusion and the cosignature', async () => {
    const ctxId = published[1] as string
    const { status, body: envelope } = await getJson(`${registryUrl}/contexts/${encodeURIComponent(ctxId)}`)
    expect(status).toBe(200)
    const proof = await getJson(`${registryUrl}/log/proof?ctx_id=${encodeURIComponent(ctxId)}`)
    expect(proof.status).toBe(200)
    expect(proof.body).toMatchObject({ log_id: LOG_ID, tree_size: 3, leaf_index: 1 })
    const witnessed = (await getJson(`${registryUrl}/log/checkpoint`)).body
    expect(witnessed.log_checkpoint).toEqual(proof.body.log_checkpoint)
    // The consumer's whole bundle: the retrieval envelope, the inclusion proof, the aggregated cosignatures.
    const report = await verifyContext(
      { ...envelope, log_inclusion: proof.body, witness_signatures: witnessed.witness_signatures },
      { resolver, evidence: { now: new Date(Date.now() + 60_000), trustedWitnesses: [WITNESS_DID] } },
    )
    const byName = Object.fromEntries(report.checks.map((check) => [check.name, check]))
    expect(byName['registry_receipt']).toMatchObject({ ok: true })
    expect(byName['log_inclusion']).toMatchObject({ ok: true })
    expect(byName['witness_signatures']).toMatchObject({ ok: true, detail: `1-witnessed: ${WITNESS_DID}` })
    expect(report.ok).toBe(true)
    // No revocation list was passed: that one stage is reported not checked, never silently passed.
    expect(report.unchecked).toEqual(['key_revocation'])

    // The leaf is rebuilt from the receipt verifyContext just verified, never taken from the proof answer.
    const leafHash = computeLogLeafHash(buildLogLeaf(envelope.registry_receipt))
    const included = await verifyLogInclusion(proof.body, leafHash, { ...checkpointContext(), now: new Date() })
    expect(included.checkpoint.tree_size).toBe(3)
  })

  it('acdp get --verify checks and prints the receipt, the inclusion proof and the witness cosignature', async () => {
    const io = captureIo({ cwd: dataDir, outbound: consumerOutbound })
    const code = await runCli(
      ['get', published[2] as string, '--verify', '--registry', registryUrl, '--trust-witness', WITNESS_DID],
      io,
    )
    const out = io.out()
    expect(out).toMatch(new RegExp(`ok\\s+registry_receipt\\s+receipt by ${REGISTRY_DID} verifies`))
    expect(out).toMatch(new RegExp(`ok\\s+log_inclusion\\s+leaf 2 is in ${LOG_ID} at tree size 3`))
    expect(out).toMatch(new RegExp(`ok\\s+witness_signatures\\s+1-witnessed: ${WITNESS_DID}`))
    expect(out).toContain('note  witness cosignatures fetched from GET /log/checkpoint')
    expect(out).toContain('verified: ')
    expect(code).toBe(0)
  })

  it('after more publishes the witness proves consistency, cosigns the larger tree, and the registry serves it', async () => {
    const before = (await getJson(`${registryUrl}/log/checkpoint`)).body.log_checkpoint as LogCheckpoint
    // An auditor keeps the witnessed checkpoint at size 3 (acdp log audit --state) …
    const statePath = join(dataDir, 'audit-state.json')
    const audit = async () => {
      const io = captureIo({ cwd: dataDir, outbound: consumerOutbound })
      const code = await runCli(
        ['log', 'audit', registryUrl, '--count', '1', '--interval', '0', '--state', statePath],
        io,
      )
      return { code, out: io.out() }
    }
    const first = await audit()
    expect(first.out).toMatch(
      /checkpoint verified: size 3, root sha256:[0-9a-f]{64}; 1 witness cosignature\(s\) verify/,
    )
    expect(first.code).toBe(0)
    const producer = createProducer({ registryUrl, key: createProducerKey() })
    for (let i = 0; i < 2; i += 1) {
      expect((await producer.publish({ title: `trust loop more ${i}`, type: 'analysis' })).status).toBe(201)
    }
    expect(await poll(witness, witnessClock)).toBe(1)
    const state = await witnessState(witness)
    expect(state).toMatchObject({ treeSize: 5, alert: null })
    expect(state.checkpoints[0]).toMatchObject({ treeSize: 5, consistencyOk: true })

    const envelope = await eventually('a witnessed checkpoint at size 5', async () => {
      const { body } = await getJson(`${registryUrl}/log/checkpoint`)
      return body.log_checkpoint?.tree_size === 5 ? body : undefined
    })
    const verified = await verifyCheckpoint(envelope.log_checkpoint, { ...checkpointContext(), now: new Date() })
    await verifyCosignature(envelope.witness_signatures[0], {
      checkpoint: verified.checkpoint,
      resolveKey: resolver.resolveKey.bind(resolver),
      isTrustedWitness: (id) => id === WITNESS_DID,
      now: new Date(Date.now() + 60_000),
    })
    // The witness now reads the §6.1 envelope carrying its own cosignature: same size, same root — liveness, and
    // its own cosignature is never counted or mistaken for the checkpoint.
    expect(await poll(witness, witnessClock)).toBe(1)
    expect(await witnessState(witness)).toMatchObject({ treeSize: 5, alert: null, consecutiveFailures: 0 })
    const consistency = await getJson(`${registryUrl}/log/proof?first=3&second=5`)
    expect(consistency.status).toBe(200)
    await verifyLogConsistency(consistency.body, before, { ...checkpointContext(), now: new Date() })
    // … and on its next audit proves the witnessed size 5 consistent with it.
    const second = await audit()
    expect(second.out).toMatch(/size 3 → 5: consistency proof verified; 1 witness cosignature\(s\) verify/)
    expect(second.code).toBe(0)
  })
})
