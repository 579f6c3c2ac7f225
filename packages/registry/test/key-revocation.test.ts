/**
 * RFC-ACDP-0014 at the registry, driven with the rev-001 golden revocation against a live registry: the golden
 * publish request (K2 revoking K1, T = its `compromised_since`) is accepted byte for byte, and from T on the
 * registry refuses new signatures by K1 — publishes and lifecycle events alike — while K2 keeps working.
 * The producer's DID document is the rot-001 story with K1 still in assertionMethod, so the refusal below can
 * only come from the revocation (not from a rotation).
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ed25519PublicKeyFromSeed } from '@acdp/protocol'
import { openDatabase } from '@acdp/storage'
import { afterAll, describe, expect, it } from 'vitest'
import {
  type Fixture,
  hasConformance,
  loadFixtures,
  reportMissingConformance,
} from '../../../test/support/conformance.js'
import {
  minimalUnsigned,
  type Producer,
  publish,
  signRequest,
  TestClock,
  type TestRegistry,
  useTestRegistry,
} from './support/registry-harness.js'

reportMissingConformance('registry key revocation')
const start = useTestRegistry()
const fixtures = loadFixtures('rev-001')
const [rev001] = fixtures
/** The cases that ran to the end; the fixture counts as driven once its golden publish was accepted and enforced. */
const ran = new Set<string>()

function goldenProducer(seedHex: string, fragment: string): Producer {
  const privateKey = new Uint8Array(Buffer.from(seedHex, 'hex'))
  const did = 'did:web:agents.example.com:test-producer'
  return {
    did,
    keyId: `${did}#${fragment}`,
    algorithm: 'ed25519',
    privateKey,
    publicKey: ed25519PublicKeyFromSeed(privateKey),
  }
}

async function startAt(iso: string): Promise<{ r: TestRegistry; k1: Producer; k2: Producer; fx: Fixture }> {
  const fx = rev001 as Fixture
  const k1 = goldenProducer('00'.repeat(32), 'key-1')
  const k2 = goldenProducer(fx.test_keypair.private_seed_hex, 'key-2')
  const r = await start({ clock: new TestClock(Date.parse(iso)) })
  r.dids.host([k1, k2])
  return { r, k1, k2, fx }
}

describe.runIf(hasConformance)('key revocation at publish (rev-001 live)', () => {
  afterAll(() => {
    const driven = ran.has('golden') ? fixtures.length : 0
    console.log(
      `[registry key revocation] ${driven}/${fixtures.length} rev-001 fixture(s) driven against a live registry (${ran.size} cases)`,
    )
  })

  it('accepts the golden revocation byte for byte, then refuses K1 from compromised_since on', async () => {
    const { r, k1, k2, fx } = await startAt('2026-05-02T00:00:00.000Z')
    expect(Buffer.from(k1.publicKey).toString('hex')).toBe(fx.revoked_key.public_key_hex)
    expect(Buffer.from(k2.publicKey).toString('hex')).toBe(fx.test_keypair.public_key_hex)
    const golden = fx.vectors[0].expected.publish_request_body
    // K1 still signs before the revocation is known.
    expect((await publish(r.app, signRequest(k1, minimalUnsigned(k1)))).statusCode).toBe(201)
    const res = await publish(r.app, golden)
    expect(res.statusCode).toBe(201)
    const { ctx_id } = res.json() as { ctx_id: string }
    const stored = await r.app.inject({ method: 'GET', url: `/contexts/${encodeURIComponent(ctx_id)}/body` })
    expect(stored.json()).toMatchObject({ content_hash: fx.vectors[0].expected.content_hash })

    const refused = await publish(r.app, signRequest(k1, minimalUnsigned(k1, { title: 'after theft' })))
    expect(refused.statusCode).toBe(403)
    expect(refused.json()).toEqual({
      error: {
        code: 'key_not_authorized',
        message: expect.any(String),
        details: {
          reason: 'key_revoked',
          revocation_ctx_id: ctx_id,
          compromised_since: golden.metadata.compromised_since,
        },
      },
    })
    expect((await publish(r.app, signRequest(k2, minimalUnsigned(k2)))).statusCode).toBe(201)
    ran.add('golden')
  })

  it('lets K1 sign until the boundary and refuses it at exactly T (at-or-after fails closed)', async () => {
    const { r, k1, fx } = await startAt('2026-04-30T23:59:59.000Z')
    const golden = fx.vectors[0].expected.publish_request_body
    expect((await publish(r.app, golden)).statusCode).toBe(201)
    expect((await publish(r.app, signRequest(k1, minimalUnsigned(k1, { title: 'before T' })))).statusCode).toBe(201)
    r.clock.nowMs = Date.parse(golden.metadata.compromised_since)
    expect((await publish(r.app, signRequest(k1, minimalUnsigned(k1, { title: 'at T' })))).statusCode).toBe(403)
    ran.add('boundary')
  })

  it('ignores a revocation by another producer of the same key bytes', async () => {
    const { r, k1, fx } = await startAt('2026-05-02T00:00:00.000Z')
    // Someone else "revokes" K1's fingerprint: it is not their key, so it binds nothing (controller ≠ agent).
    const other = goldenProducer(fx.test_keypair.private_seed_hex, 'key-9')
    const impostor = {
      ...other,
      did: 'did:web:agents.example.com:impostor',
      keyId: 'did:web:agents.example.com:impostor#key-9',
    }
    r.dids.host([impostor])
    const metadata = fx.vectors[0].producer_content.metadata
    expect(
      (await publish(r.app, signRequest(impostor, minimalUnsigned(impostor, { type: 'key-revocation', metadata }))))
        .statusCode,
    ).toBe(201)
    expect((await publish(r.app, signRequest(k1, minimalUnsigned(k1)))).statusCode).toBe(201)
    ran.add('impostor')
  })

  it('honours a registry-attested revocation this registry published for the producer', async () => {
    const { r, k1, fx } = await startAt('2026-05-02T00:00:00.000Z')
    const registryKey = goldenProducer('11'.repeat(32), 'receipt-key-1')
    const registry = {
      ...registryKey,
      did: 'did:web:registry.example.com',
      keyId: 'did:web:registry.example.com#receipt-key-1',
    }
    r.dids.host([registry])
    const metadata = { ...fx.vectors[0].producer_content.metadata, revoked_key_controller: k1.did }
    const attested = await publish(
      r.app,
      signRequest(registry, minimalUnsigned(registry, { type: 'key-revocation', metadata })),
    )
    expect(attested.statusCode).toBe(201)
    const refused = await publish(r.app, signRequest(k1, minimalUnsigned(k1)))
    expect(refused.statusCode).toBe(403)
    expect(refused.json().error.details.reason).toBe('key_revoked')
    ran.add('registry-attested')
  })

  it('still refuses the revoked key after a restart (the signer filter is loaded from the store)', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'acdp-rev-')), 'registry.db')
    const open = () => openDatabase({ kind: 'sqlite', path: file })
    const fx = rev001 as Fixture
    const k1 = goldenProducer('00'.repeat(32), 'key-1')
    const k2 = goldenProducer(fx.test_keypair.private_seed_hex, 'key-2')
    const first = await start({ clock: new TestClock(Date.parse('2026-05-02T00:00:00.000Z')), openDatabase: open })
    first.dids.host([k1, k2])
    expect((await publish(first.app, fx.vectors[0].expected.publish_request_body)).statusCode).toBe(201)
    await first.close()
    const second = await start({ clock: new TestClock(Date.parse('2026-05-02T00:00:00.000Z')), openDatabase: open })
    second.dids.host([k1, k2])
    const refused = await publish(second.app, signRequest(k1, minimalUnsigned(k1)))
    expect(refused.statusCode).toBe(403)
    expect(refused.json().error.details.reason).toBe('key_revoked')
    ran.add('restart')
  })
})
