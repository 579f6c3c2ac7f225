/**
 * Conformance of the live witness (RFC-ACDP-0012 / RFC-ACDP-0015 fixtures that apply to a witness), end to end
 * over HTTPS: a scripted registry at `registry.example.com` serves the fixtures' signed checkpoints and proofs
 * verbatim, the service polls it, and its answers are compared with the fixtures byte for byte.
 *
 * - log-003: the size-3 → size-5 consistency proof is accepted (head advances, consistency_ok).
 * - wit-001: witnessing the log-001 checkpoint at the fixture's `witnessed_at` with the fixture witness key yields
 *   exactly the golden cosignature on GET /log/witness; our DID document publishes that key.
 * - wit-002: the rewritten size-5 root fails consistency against the retained size-3 head: refused, evidence kept.
 * - log-004: a checkpoint altered after signing is refused (checkpoint_signature_invalid), never cosigned.
 * - wit-003 / wit-004: registry-aggregated cosignatures count as 2 distinct trusted witnesses; the wrong-key
 *   cosignature (and a future-dated one) does not count.
 * log-001/log-002 pin leaf hashing and inclusion proofs, which a witness never uses (RFC-ACDP-0015 §7).
 */
import {
  cosignCheckpoint,
  decodeMultibaseKey,
  encodeMultibaseKey,
  type LogCheckpoint,
  type LogCosignature,
  signCheckpoint,
  verifyCosignature,
} from '@acdp/protocol'
import { testDatabaseTargets } from '@acdp/storage'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { hasConformance, loadFixtures, reportMissingConformance } from '../../../test/support/conformance.js'
import type { ScriptedAnswer } from './support/log-registry-simulator.js'
import { T0 } from './support/test-app.js'
import { INTERVAL_SECONDS, type Json, openWitnessApp, type WitnessTestApp } from './support/witness-app.js'

reportMissingConformance('witness conformance')

const fixture = (id: string) => loadFixtures(id)[0] as Json
const hexBytes = (hex: string) => new Uint8Array(Buffer.from(hex, 'hex'))

/** An Ed25519 PKCS#8 PEM (RFC 8410) from a fixture seed. */
function pemFromSeed(seedHex: string): string {
  const der = Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), Buffer.from(seedHex, 'hex')])
  return `-----BEGIN PRIVATE KEY-----\n${der.toString('base64')}\n-----END PRIVATE KEY-----\n`
}

function didDocument(did: string, keyId: string, publicKeyHex: string) {
  return {
    '@context': ['https://www.w3.org/ns/did/v1'],
    id: did,
    verificationMethod: [
      {
        id: keyId,
        type: 'Ed25519VerificationKey2020',
        controller: did,
        publicKeyMultibase: encodeMultibaseKey({ algorithm: 'ed25519', publicKey: hexBytes(publicKeyHex) }),
      },
    ],
    assertionMethod: [keyId],
  }
}

describe.runIf(hasConformance)('witness conformance (live service)', () => {
  let log003: Json
  let wit001: Json
  let first: LogCheckpoint
  let second: LogCheckpoint
  let registryKeyId: string
  let t: WitnessTestApp | undefined

  beforeAll(() => {
    log003 = fixture('log-003')
    wit001 = fixture('wit-001')
    const vector = log003.vectors[0]
    registryKeyId = log003.registry_test_keypair.key_id
    const signed = (unsigned: Json, value: string): LogCheckpoint => ({
      ...unsigned,
      signature: { algorithm: 'ed25519', key_id: registryKeyId, value },
    })
    first = signed(vector.first_checkpoint_unsigned, vector.expected.first_signature_value_base64)
    second = signed(vector.second_checkpoint_unsigned, vector.expected.second_signature_value_base64)
  })

  afterEach(async () => {
    await t?.close()
    t = undefined
  })

  /**
   * A witness app on SQLite with a scripted `registry.example.com` serving `served()` at /log/checkpoint and the
   * log-003 proof; the clock is placed so the second poll observes at wit-001's `witnessed_at`.
   */
  async function open(env: Record<string, string>, served: () => ScriptedAnswer['body']) {
    const target = testDatabaseTargets()[0]!
    const app = await openWitnessApp(target, env)
    const vector = log003.vectors[0]
    app.sim.serveHost('registry.example.com', (path, query) => {
      if (path === '/.well-known/acdp.json') {
        return {
          status: 200,
          body: { registry_did: 'did:web:registry.example.com', profiles: ['acdp-registry-transparency-log'] },
        }
      }
      if (path === '/.well-known/did.json') {
        return {
          status: 200,
          body: didDocument('did:web:registry.example.com', registryKeyId, log003.registry_test_keypair.public_key_hex),
        }
      }
      if (path === '/log/checkpoint') return { status: 200, body: served() }
      if (path === '/log/proof' && query.get('first') === '3' && query.get('second') === '5') {
        return { status: 200, body: { ...vector.expected.consistency_proof_response, log_checkpoint: second } }
      }
      return undefined
    })
    await app.store.upsertEnrollment({
      authority: 'registry.example.com',
      tenantId: 'acme',
      baseUrl: 'https://registry.example.com',
      now: app.deps.clock().getTime(),
    })
    const witnessedAt = Date.parse(wit001.vectors[0].cosignature_unsigned.witnessed_at)
    app.advance(witnessedAt - T0 - 2 * INTERVAL_SECONDS * 1000)
    t = app
    return app
  }

  const witnessA = () => ({
    WITNESS_ID: 'did:web:witness.example.org',
    PUBLIC_HOST: 'witness.example.org',
    WITNESS_SIGNING_PRIVATE_KEY_PEM: pemFromSeed(wit001.witness_test_keypair.private_seed_hex),
  })

  it('log-003 + wit-001: accepts the 3 → 5 consistency proof and serves exactly the golden cosignature', async () => {
    let current = first
    const app = await open(witnessA(), () => current)
    await app.nextPoll()
    current = second
    await app.nextPoll()
    const state = (await app.get('/registries/registry.example.com/log-witness')).json()
    expect(state).toMatchObject({ treeSize: 5, rootHash: second.root_hash, alert: null })
    expect(state.checkpoints[0]).toMatchObject({ treeSize: 5, consistencyOk: true })

    const logId = encodeURIComponent(second.log_id)
    const served = await app.app.inject({ method: 'GET', url: `/log/witness?log_id=${logId}&tree_size=5` })
    expect(served.statusCode).toBe(200)
    expect(served.headers['content-type']).toMatch(/^application\/acdp\+json/)
    const body = served.json()
    expect(body.witness_id).toBe(wit001.witness_test_keypair.key_id.split('#')[0])
    expect(body.witness_signatures).toEqual([wit001.vectors[0].expected.log_cosignature])

    // Our DID document publishes the witness key the golden signature verifies under.
    const did = await app.app.inject({ method: 'GET', url: '/.well-known/did.json' })
    expect(did.headers['content-type']).toMatch(/^application\/did\+json/)
    const method = did.json().verificationMethod[0]
    expect(did.json().assertionMethod).toEqual([method.id])
    expect(Buffer.from(decodeMultibaseKey(method.publicKeyMultibase).publicKey).toString('hex')).toBe(
      wit001.witness_test_keypair.public_key_hex,
    )
    await verifyCosignature(body.witness_signatures[0], {
      checkpoint: second,
      resolveKey: () => decodeMultibaseKey(method.publicKeyMultibase),
      isTrustedWitness: () => true,
      now: app.deps.clock(),
    })
  })

  it('wit-002: refuses the rewritten size-5 root against the retained size-3 head and keeps the evidence', async () => {
    const scenario = fixture('wit-002').scenario
    const { note: _note, ...rewrittenUnsigned } = scenario.presented_checkpoint
    const rewritten = signCheckpoint(rewrittenUnsigned, {
      algorithm: 'ed25519',
      keyId: registryKeyId,
      privateKey: hexBytes(log003.registry_test_keypair.private_seed_hex),
    })
    let current = first
    const app = await open(witnessA(), () => current)
    await app.nextPoll()
    current = rewritten
    await app.nextPoll()
    const state = (await app.get('/registries/registry.example.com/log-witness')).json()
    expect(state).toMatchObject({
      treeSize: scenario.retained_head.tree_size,
      rootHash: scenario.retained_head.root_hash,
    })
    expect(state.alert).toMatchObject({
      reason: 'consistency_failed',
      detail: {
        error: fixture('wit-002').expected.reason,
        evidence: {
          retained_head: { tree_size: 3, root_hash: scenario.retained_head.root_hash },
          presented_checkpoint: { tree_size: 5, root_hash: scenario.presented_checkpoint.root_hash },
          consistency_path: log003.vectors[0].expected.consistency_proof_response.consistency_path,
        },
      },
    })
    const served = (await app.app.inject({ method: 'GET', url: '/log/witness?tree_size=5' })).json()
    expect(served.witness_signatures).toEqual([])
  })

  it('log-004: a checkpoint altered after signing is refused and never cosigned', async () => {
    const tampered = fixture('log-004').input.log_checkpoint
    const app = await open(witnessA(), () => tampered)
    await app.nextPoll()
    const state = (await app.get('/registries/registry.example.com/log-witness')).json()
    expect(state).toMatchObject({ logId: null, alert: { reason: 'checkpoint_signature_invalid' } })
    expect((await app.app.inject({ method: 'GET', url: '/log/witness' })).json().witness_signatures).toEqual([])
  })

  describe('quorum consumption', () => {
    let wit003: Json
    let cosignatures: LogCosignature[]
    beforeAll(() => {
      wit003 = fixture('wit-003')
      cosignatures = wit003.vectors.map((vector: Json, index: number) => {
        const witnessId = wit003.witness_test_keypairs[index].witness_id
        return {
          ...vector.cosignature_unsigned,
          signature: {
            algorithm: 'ed25519',
            key_id: `${witnessId}#witness-key-1`,
            value: vector.expected.signature_value_base64,
          },
        }
      })
    })

    async function openQuorum(signatures: () => unknown[]) {
      const app = await open(
        {
          WITNESS_QUORUM_ENABLED: 'true',
          WITNESS_QUORUM_TRUSTED: wit003.witness_test_keypairs.map((k: Json) => k.witness_id).join(','),
          WITNESS_QUORUM_MIN_WITNESSES: '2',
        },
        () => ({ log_checkpoint: second, witness_signatures: signatures() }),
      )
      for (const [index, host] of ['witness.example.org', 'witness-2.example.org'].entries()) {
        const keypair = wit003.witness_test_keypairs[index]
        app.sim.serveHost(host, (path) =>
          path === '/.well-known/did.json'
            ? {
                status: 200,
                body: didDocument(keypair.witness_id, `${keypair.witness_id}#witness-key-1`, keypair.public_key_hex),
              }
            : undefined,
        )
      }
      // wit-003's second cosignature is dated 12:03: observe after it (a cosignature from the future never counts).
      app.advance(5 * 60_000)
      await app.nextPoll()
      await app.nextPoll()
      return (await app.get('/registries/registry.example.com/log-witness')).json()
    }

    it('wit-003: two distinct trusted witnesses over the exact tuple → witnessedCount 2, meets quorum', async () => {
      const state = await openQuorum(() => [...cosignatures, cosignatures[0]])
      expect(state.checkpoints[0]).toMatchObject({
        treeSize: wit003.expected_quorum.tree_size,
        rootHash: wit003.expected_quorum.root_hash,
        witnessedCount: wit003.expected_quorum.witnessed_count,
        meetsQuorum: true,
      })
      const dashboard = (await t!.get('/dashboard/overview')).json()
      expect(dashboard.logWitness.headsMeetingQuorum).toBe(1)
    })

    it('wit-004 and a future-dated cosignature do not count toward the quorum', async () => {
      const wrongKey = fixture('wit-004').cosignature
      const futureDated = () =>
        cosignCheckpoint({
          checkpoint: second,
          witnessId: 'did:web:witness.example.org',
          witnessedAt: new Date(t!.deps.clock().getTime() + 3600_000),
          key: {
            algorithm: 'ed25519',
            keyId: 'did:web:witness.example.org#witness-key-1',
            privateKey: hexBytes(wit003.witness_test_keypairs[0].private_seed_hex),
          },
        })
      const state = await openQuorum(() => [wrongKey, futureDated(), cosignatures[1]])
      expect(state.checkpoints[0]).toMatchObject({ witnessedCount: 1, meetsQuorum: false })
    })
  })
})
