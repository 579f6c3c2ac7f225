import {
  cosignCheckpoint,
  didKeyKeyId,
  DidResolver,
  encodeDidKey,
  generateSigningKey,
  type OutboundClient,
  ProtocolError,
} from '@acdp/protocol'
import { describe, expect, it } from 'vitest'
import { createRegistryMetrics } from '../core/metrics.js'
import { WitnessAggregator } from './witness-cosignatures.js'

const LOG_ID = 'did:web:registry.example.com/log/1'
const ROOT = `sha256:${'ab'.repeat(32)}`
const NOW = new Date('2026-07-04T12:00:00.000Z')

function witnessKey() {
  const key = generateSigningKey('ed25519')
  const did = encodeDidKey({ algorithm: 'ed25519', publicKey: key.publicKey })
  return { did, signingKey: { algorithm: 'ed25519' as const, keyId: didKeyKeyId(did), privateKey: key.privateKey } }
}

function cosign(witness: ReturnType<typeof witnessKey>, treeSize: number, rootHash = ROOT, witnessedAt = NOW) {
  return cosignCheckpoint({
    checkpoint: { log_id: LOG_ID, tree_size: treeSize, root_hash: rootHash, timestamp: NOW.toISOString() },
    witnessId: witness.did,
    witnessedAt,
    key: witness.signingKey,
  })
}

function outboundAnswering(answer: () => { status: number; body: unknown }): OutboundClient {
  return {
    async request(url) {
      const { status, body } = answer()
      return { status, headers: {}, body: new TextEncoder().encode(JSON.stringify(body)), url: String(url) }
    },
    async checkUrl() {},
    async close() {},
  }
}

function aggregator(witness: ReturnType<typeof witnessKey>, outbound: OutboundClient) {
  const metrics = createRegistryMetrics()
  const config = { did: witness.did, url: 'https://witness.example.org/log/witness', poll_seconds: 60 }
  const resolver = new DidResolver({ fetchDidDocument: async () => ({ status: 404, body: new Uint8Array() }) })
  const instance = new WitnessAggregator({
    logId: LOG_ID,
    witnesses: [config],
    outbound,
    resolver,
    clock: () => NOW,
    rootAt: async (size) => (size <= 10 ? ROOT : undefined),
    metrics,
  })
  return { instance, config, metrics }
}

describe('WitnessAggregator', () => {
  it('keeps one verified cosignature per witness and tuple, the newest, and serves it for that tuple only', async () => {
    const w = witnessKey()
    const older = cosign(w, 7, ROOT, new Date(NOW.getTime() - 60_000))
    const newer = cosign(w, 7)
    const { instance, config } = aggregator(
      w,
      outboundAnswering(() => ({ status: 200, body: { witness_signatures: [older, newer] } })),
    )
    expect(await instance.poll(config)).toBe(2)
    expect(instance.cosignaturesFor(7, ROOT)).toEqual([newer])
    expect(instance.cosignaturesFor(7, `sha256:${'cd'.repeat(32)}`)).toEqual([])
    expect(instance.cosignaturesFor(8, ROOT)).toEqual([])
  })

  it('drops cosignatures from another witness, for a size the log does not have, or future-dated', async () => {
    const w = witnessKey()
    const stranger = witnessKey()
    const answers = [
      cosign(stranger, 3),
      cosign(w, 11),
      cosign(w, 3, ROOT, new Date(NOW.getTime() + 300_000)),
      { x: 1 },
    ]
    const { instance, config, metrics } = aggregator(
      w,
      outboundAnswering(() => ({ status: 200, body: { witness_signatures: answers } })),
    )
    expect(await instance.poll(config)).toBe(0)
    expect(instance.cosignaturesFor(3, ROOT)).toEqual([])
    expect(await metrics.registry.metrics()).toMatch(/acdp_registry_witness_cosignatures_total\{outcome="rejected"\} 4/)
  })

  it('counts an unreachable or malformed witness and keeps going', async () => {
    const w = witnessKey()
    let mode = 0
    const answering = outboundAnswering(() =>
      mode === 1 ? { status: 500, body: {} } : { status: 200, body: { nope: [] } },
    )
    const outbound: OutboundClient = {
      ...answering,
      async request(url, init) {
        if (mode === 0) throw new ProtocolError('outbound_failed', 'connect timeout')
        return answering.request(url, init)
      },
    }
    const { instance, config, metrics } = aggregator(w, outbound)
    for (mode = 0; mode < 3; mode++) expect(await instance.poll(config)).toBe(0)
    expect(await metrics.registry.metrics()).toMatch(
      /acdp_registry_witness_cosignatures_total\{outcome="unreachable"\} 3/,
    )
  })
})
