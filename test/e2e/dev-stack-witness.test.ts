/**
 * `acdp dev` witnesses its own registry: the stack as startDevStack wires it (both services in-process, real
 * loopback sockets, plain HTTP under the loopback allowlist), with the registry's receipts and transparency log on
 * and the control plane's log witness on. The dev registry's DID is `did:web:localhost`, whose standard document
 * URL (https://localhost/.well-known/did.json) nothing serves; the witness reads it through the enrolled plain-http
 * base URL instead (services/witness-registry-keys.ts), so it verifies the checkpoint signature, follows the log as
 * it grows (consistency proven) and raises no alert. Polls are driven by the test; every wait is bounded.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createProducer, createProducerKey } from '@acdp/protocol'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningDevStack, startDevStack } from '../../packages/cli/src/index.js'

const WAIT_MS = 10_000

interface WitnessState {
  logId: string | null
  treeSize: number | null
  rootHash: string | null
  consecutiveFailures: number
  lastFailure: string | null
  alert: { reason: string } | null
  checkpoints: Array<{ treeSize: number; rootHash: string; consistencyOk: boolean | null }>
}

describe('acdp dev: the log witness follows the dev registry’s own log', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'acdp-e2e-dev-witness-'))
  let stack: RunningDevStack

  const witnessState = async (): Promise<WitnessState> => {
    const response = await fetch(`${stack.controlPlaneUrl}/registries/localhost/log-witness`, {
      headers: { authorization: `Bearer ${stack.secrets.control_plane_api_key}` },
      signal: AbortSignal.timeout(5000),
    })
    expect(response.status).toBe(200)
    return (await response.json()) as WitnessState
  }
  /** The registry's own current checkpoint (bare, or inside the RFC-ACDP-0015 §6.1 envelope). */
  const registryCheckpoint = async (): Promise<{ log_id: string; tree_size: number; root_hash: string }> => {
    const response = await fetch(`${stack.registryUrl}/log/checkpoint`, { signal: AbortSignal.timeout(5000) })
    expect(response.status).toBe(200)
    const body = (await response.json()) as Record<string, unknown>
    return (body['log_checkpoint'] ?? body) as { log_id: string; tree_size: number; root_hash: string }
  }
  const pollOnce = async () => {
    const witness = stack.controlPlane.app.witness
    await witness.store.syncCursors(Date.now())
    return witness.poller!.pollDue()
  }
  const publish = async (producer: ReturnType<typeof createProducer>, title: string) => {
    const result = await producer.publish({ type: 'analysis', title })
    expect(result.status).toBe(201)
  }

  beforeAll(async () => {
    stack = await startDevStack({
      dataDir,
      host: '127.0.0.1',
      registryPort: 0,
      controlPlanePort: 0,
      logLevel: 'warn',
      writeLog: () => {},
      // Polled by the test only; a single failed poll would already raise `unreachable`.
      controlPlaneEnv: {
        LOG_WITNESS_ENABLED: 'true',
        LOG_WITNESS_SCHEDULE: 'false',
        LOG_WITNESS_UNREACHABLE_THRESHOLD: '1',
        LOG_WITNESS_INTERVAL_SECONDS: '1',
        // The poll deadline is short here: a poll stuck on the unreachable https://localhost would fail the test.
        LOG_WITNESS_POLL_TIMEOUT_MS: '5000',
      },
    })
  }, 60_000)

  afterAll(async () => {
    await stack?.close()
    rmSync(dataDir, { recursive: true, force: true })
  })

  it('verifies the first checkpoint with the key read through the enrolled base URL, then proves growth', async () => {
    const producer = createProducer({ registryUrl: stack.registryUrl, key: createProducerKey() })
    await publish(producer, 'first entry of the dev log')

    expect(await pollOnce()).toBe(1)
    const first = await registryCheckpoint()
    const anchored = await witnessState()
    expect(anchored).toMatchObject({
      logId: first.log_id,
      treeSize: first.tree_size,
      rootHash: first.root_hash,
      consecutiveFailures: 0,
      lastFailure: null,
      alert: null,
    })
    expect(first.log_id.startsWith('did:web:localhost/log/')).toBe(true)
    expect(first.tree_size).toBeGreaterThan(0)

    await publish(producer, 'second entry')
    await publish(producer, 'third entry')
    const grown = await registryCheckpoint()
    expect(grown.tree_size).toBeGreaterThan(first.tree_size)
    // Due again one interval (1 s) after the first poll: poll until it was observed, bounded.
    const deadline = Date.now() + WAIT_MS
    while ((await pollOnce()) === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100))
    const followed = await witnessState()
    expect(followed).toMatchObject({
      treeSize: grown.tree_size,
      rootHash: grown.root_hash,
      consecutiveFailures: 0,
      alert: null,
    })
    // The newest evidence row is the grown head, proven consistent with the anchored one.
    expect(followed.checkpoints[0]).toMatchObject({
      treeSize: grown.tree_size,
      rootHash: grown.root_hash,
      consistencyOk: true,
    })
    const alerts = await fetch(`${stack.controlPlaneUrl}/registries/log-witness/alerts?includeAcknowledged=true`, {
      headers: { authorization: `Bearer ${stack.secrets.control_plane_api_key}` },
    })
    expect(((await alerts.json()) as { data: unknown[] }).data).toEqual([])
  })
})
