/**
 * Consumer conformance for historical keys and key revocation (rot-001, rev-002) against a LIVE registry: the
 * registry (real store on SQLite and, when ACDP_TEST_DATABASE_URL is set, PostgreSQL; real DID pipeline; the
 * rcpt-001 receipt key; a TestClock) accepts the sig-001 golden body signed by K1 at the fixtures' times, the
 * test rotates the producer's did:web document to rot-001's (K1 retired to verificationMethod, K2 current) and
 * publishes rev-001's revocation of K1 where rev-002 needs it. Each context is then retrieved over a loopback
 * socket and verified with the SDK verifier (`verifyContext` with evidence), the producer's revocations
 * discovered on that registry by the lookup `acdp get --verify` runs (the SDK's findProducerRevocations). Outcomes, statuses, times and keys are read from the fixtures.
 *
 * Everything comes from the live registry, including rev-002 B's late receipt: the registry's clock is set to
 * the scenario's time and K1 publishes before the producer's revocation reaches that registry (afterwards the
 * registry refuses K1, see key-revocation.test.ts). "No receipt" scenarios are served by a registry running
 * without receipts. No golden receipt is used as input; the pre-compromise publish pins the rcpt-001 ctx_id so
 * the live receipt can be compared with the golden one.
 */
import { randomBytes } from 'node:crypto'
import type { AddressInfo } from 'node:net'
import {
  createRegistryJsonReader,
  DidResolver,
  ed25519PublicKeyFromSeed,
  findProducerRevocations,
  type KeyRevocation,
  type VerificationReport,
  verifyContext,
} from '@acdp/protocol'
import { type TestDatabaseTarget, testDatabaseTargets } from '@acdp/storage'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import {
  describeConformance,
  type Fixture,
  loadFixtures,
  reportMissingConformance,
} from '../../../test/support/conformance.js'
import {
  AUTHORITY,
  createTestRegistry,
  FakeDidWeb,
  type Producer,
  publish,
  signRequest,
  TestClock,
  type TestRegistry,
} from './support/registry-harness.js'
import { TRUST_CONFIG } from './support/trust.js'

reportMissingConformance('consumer conformance (live registry)')

const targets = testDatabaseTargets()
/** `<fixture id> <scenario letter>` → the database targets it ran on. */
const ran = new Map<string, Set<string>>()

describeConformance('rot-001 and rev-002 against a live registry', () => {
  const one = (prefix: string) => loadFixtures(prefix)[0] as Fixture
  const sig = one('sig-001')
  const rcpt = one('rcpt-001')
  const rot = one('rot-001')
  const rev1 = one('rev-001')
  const rev2 = one('rev-002')
  const scenarioIds = [rot, rev2].flatMap((fx) =>
    (fx.scenarios as Array<{ name: string }>).map((s) => `${fx.id} ${s.name.split(' ')[0]}`),
  )

  const scenario = (fx: Fixture, letter: string) => {
    const found = (
      fx.scenarios as Array<{ name: string; expected: { outcome: string; verification_status?: string } }>
    ).find((s) => s.name.startsWith(`${letter} `))
    if (found === undefined) throw new Error(`${fx.id} has no scenario ${letter}`)
    return found.expected
  }
  /** A receipt-attested publish time a rev-002 scenario states ("created_at = <time>"). */
  const statedTime = (letter: string) => {
    const match = /created_at = (\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z)/.exec(
      (scenario(rev2, letter) as { behavior?: string }).behavior ?? '',
    )
    if (match === null) throw new Error(`rev-002 ${letter} states no created_at`)
    return match[1] as string
  }

  const goldenBody = sig.vectors[0].expected.publish_request_body as Record<string, unknown> & {
    agent_id: string
    signature: { key_id: string }
  }
  const goldenReceipt = rcpt.vectors[0].expected.registry_receipt as { ctx_id: string; created_at: string }
  const revocationRequest = rev1.vectors[0].expected.publish_request_body as Record<string, unknown> & {
    metadata: { compromised_since: string }
  }
  const boundary = revocationRequest.metadata.compromised_since
  const preCompromiseAt = statedTime('A')
  const rotDocument = rot.input.producer_did_document as { verificationMethod: Array<{ id: string }> }
  const producerDid = goldenBody.agent_id

  const keyOf = (seedHex: string, did: string, keyId: string): Producer => {
    const privateKey = new Uint8Array(Buffer.from(seedHex, 'hex'))
    return { did, keyId, algorithm: 'ed25519', privateKey, publicKey: ed25519PublicKeyFromSeed(privateKey) }
  }
  const k1 = keyOf(sig.test_keypair.private_seed_hex, producerDid, goldenBody.signature.key_id)
  const k2 = keyOf(
    rev1.test_keypair.private_seed_hex,
    producerDid,
    (revocationRequest.signature as { key_id: string }).key_id,
  )
  const registryKey = keyOf(
    rcpt.registry_test_keypair.private_seed_hex,
    rcpt.registry_test_keypair.key_id.split('#')[0],
    rcpt.registry_test_keypair.key_id,
  )

  const json = (value: unknown) => ({ status: 200, body: new TextEncoder().encode(JSON.stringify(value)) })
  /** The producer's current DID document: rot-001's, optionally with K1 removed from verificationMethod. */
  const rotate = (dids: FakeDidWeb, options: { removeK1?: boolean } = {}) =>
    dids.answer(
      producerDid,
      json(
        options.removeK1
          ? { ...rotDocument, verificationMethod: rotDocument.verificationMethod.filter((m) => m.id !== k1.keyId) }
          : rotDocument,
      ),
    )

  describe.each(targets)('on $name', (target: TestDatabaseTarget) => {
    const open: TestRegistry[] = []
    afterEach(async () => {
      for (const r of open.splice(0)) await r.close()
    })

    /**
     * A registry listening on loopback at `iso`, receipts signed with the rcpt-001 key unless `receipts` is false.
     * While `pin.on`, every 16-byte draw is rcpt-001's ctx_id UUID (request ids draw too), so a golden publish at
     * the golden time gets the golden receipt.
     */
    async function liveRegistry(iso: string, dids: FakeDidWeb, receipts = true) {
      const uuid = new Uint8Array(Buffer.from(goldenReceipt.ctx_id.split('/').at(-1)?.replaceAll('-', '') ?? '', 'hex'))
      const pin = { on: false }
      const r = await createTestRegistry({
        openDatabase: target.open,
        clock: new TestClock(Date.parse(iso)),
        dids,
        config: receipts
          ? {
              ...TRUST_CONFIG,
              receipt: {
                ...TRUST_CONFIG.receipt,
                signing_key_seed_b64: Buffer.from(registryKey.privateKey).toString('base64'),
              },
            }
          : {},
        deps: { random: (size) => (size === 16 && pin.on ? uuid.slice() : new Uint8Array(randomBytes(size))) },
      })
      open.push(r)
      await r.app.listen({ host: '127.0.0.1', port: 0 })
      const url = `http://127.0.0.1:${(r.app.server.address() as AddressInfo).port}`
      return { r, url, pin }
    }

    /** Publishes the sig-001 golden body (signed by K1) at `iso`; at rcpt-001's ctx_id when `golden`. */
    async function publishK1(live: { r: TestRegistry; pin: { on: boolean } }, iso: string, golden = false) {
      live.pin.on = golden
      try {
        return await publishAt(live.r, iso, goldenBody)
      } finally {
        live.pin.on = false
      }
    }

    /** did:web hosting shared by a scenario's registries: the producer starts with K1 and K2 both current. */
    function producerHosting(): FakeDidWeb {
      const dids = new FakeDidWeb()
      dids.host([k1, k2])
      dids.host([registryKey])
      return dids
    }

    async function publishAt(r: TestRegistry, iso: string, body: unknown): Promise<string> {
      r.clock.nowMs = Date.parse(iso)
      const res = await publish(r.app, body)
      expect(res.statusCode, res.body).toBe(201)
      return (res.json() as { ctx_id: string }).ctx_id
    }

    /**
     * What `acdp get --verify` does against the registry at `url`: GET the context, look the producer's
     * revocations up on that registry, verify the answer with its evidence. The consumer resolves the producer
     * from the test-controlled did:web hosting and the registry from the document the registry serves.
     */
    async function retrieveAndVerify(r: TestRegistry, url: string, ctxId: string, withRevocations = true) {
      const resolver = new DidResolver({
        fetchDidDocument: async (didUrl) => {
          if (didUrl.hostname !== AUTHORITY) return r.dids.fetchDidDocument(didUrl)
          const res = await fetch(`${url}${didUrl.pathname}`)
          return { status: res.status, body: new Uint8Array(await res.arrayBuffer()) }
        },
        clock: () => r.clock.nowMs,
      })
      const res = await fetch(`${url}/contexts/${encodeURIComponent(ctxId)}`)
      expect(res.status).toBe(200)
      const envelope = (await res.json()) as Record<string, unknown>
      let revocations: KeyRevocation[] | undefined
      if (withRevocations) {
        const read = createRegistryJsonReader({ fetch: globalThis.fetch })
        revocations = (await findProducerRevocations(read, url, producerDid, AUTHORITY, resolver)).revocations
        expect(revocations).toBeDefined()
      }
      const report = await verifyContext(envelope, {
        resolver,
        evidence: { now: r.clock.now(), ...(revocations === undefined ? {} : { revocations }) },
      })
      return { envelope, report, revocations: revocations ?? [] }
    }

    const outcomeOf = (report: VerificationReport) => (report.ok ? 'success' : 'failure')
    const check = (report: VerificationReport, name: string) => report.checks.find((c) => c.name === name)
    /** A fixture status token (e.g. historically_authorized_receipt_attested) as the words of a check's detail. */
    const words = (text: string) =>
      text
        .toLowerCase()
        .replace(/[^a-z0-9]+/g, ' ')
        .trim()
    const expectStatus = (report: VerificationReport, stage: string, status: string | undefined) => {
      expect(status).toBeTypeOf('string')
      expect(words(check(report, stage)?.detail ?? '')).toContain(words(status as string))
    }
    const record = (fx: Fixture, letter: string) => {
      const id = `${fx.id} ${letter}`
      ran.set(id, (ran.get(id) ?? new Set()).add(target.name))
    }

    it('rot-001: A historically authorized by the live receipt, B fails without one, C fails once K1 is removed', async () => {
      // The fixtures tell one K1/K2 story: sig-001's key is the one rev-001 revokes, rev-001's signer is K2.
      expect(Buffer.from(k1.publicKey).toString('hex')).toBe(rev1.revoked_key.public_key_hex)
      expect(Buffer.from(k2.publicKey).toString('hex')).toBe(rev1.test_keypair.public_key_hex)
      const dids = producerHosting()
      const withReceipts = await liveRegistry(preCompromiseAt, dids)
      const without = await liveRegistry(preCompromiseAt, dids, false)
      const ctxId = await publishK1(withReceipts, preCompromiseAt, true)
      const bareId = await publishK1(without, preCompromiseAt, true)
      rotate(dids)

      const a = await retrieveAndVerify(withReceipts.r, withReceipts.url, ctxId)
      expect(a.envelope.registry_receipt).toEqual(goldenReceipt)
      expect(a.revocations).toEqual([])
      expect(outcomeOf(a.report)).toBe(scenario(rot, 'A').outcome)
      expect(check(a.report, 'historical_key')).toMatchObject({ ok: true })
      expectStatus(a.report, 'historical_key', scenario(rot, 'A').verification_status)
      record(rot, 'A')

      const b = await retrieveAndVerify(without.r, without.url, bareId)
      expect(b.envelope).not.toHaveProperty('registry_receipt')
      expect(outcomeOf(b.report)).toBe(scenario(rot, 'B').outcome)
      expect(check(b.report, 'did_resolution')).toMatchObject({ ok: false })
      record(rot, 'B')

      rotate(dids, { removeK1: true })
      const c = await retrieveAndVerify(withReceipts.r, withReceipts.url, ctxId)
      expect(c.envelope.registry_receipt).toEqual(goldenReceipt)
      expect(outcomeOf(c.report)).toBe(scenario(rot, 'C').outcome)
      expect(check(c.report, 'did_resolution')).toMatchObject({ ok: false })
      record(rot, 'C')
    })

    it('rev-002 A: a live receipt before T verifies as pre-compromise, distinguishable from rot-001 A', async () => {
      const dids = producerHosting()
      const live = await liveRegistry(preCompromiseAt, dids)
      const { r, url } = live
      const ctxId = await publishK1(live, preCompromiseAt, true)
      rotate(dids)
      const revocationId = await publishAt(r, rev1.vectors[0].registry_assigned.created_at, revocationRequest)

      const a = await retrieveAndVerify(r, url, ctxId)
      expect(a.envelope.registry_receipt).toEqual(goldenReceipt)
      expect(revocationId).toMatch(/^acdp:\/\//)
      expect(a.revocations).toMatchObject([
        { trustClass: 'producer-signed', controller: producerDid, compromisedSince: boundary },
      ])
      expect(outcomeOf(a.report)).toBe(scenario(rev2, 'A').outcome)
      expectStatus(a.report, 'key_revocation', scenario(rev2, 'A').verification_status)
      // Not reported as rot-001 A's status alone: the revocation stage names the boundary.
      expect(words(check(a.report, 'key_revocation')?.detail ?? '')).not.toBe(
        words(scenario(rot, 'A').verification_status ?? ''),
      )
      expect(check(a.report, 'key_revocation')?.detail).toContain(boundary)
      record(rev2, 'A')
    })

    it('rev-002 B: a live receipt at/after T fails closed although it verifies', async () => {
      const lateAt = statedTime('B')
      expect(Date.parse(lateAt)).toBeGreaterThanOrEqual(Date.parse(boundary))
      const dids = producerHosting()
      const live = await liveRegistry(lateAt, dids)
      const { r, url } = live
      // The stolen K1 signs before the producer's revocation reaches this registry.
      const ctxId = await publishK1(live, lateAt)
      rotate(dids)
      await publishAt(r, new Date(Date.parse(lateAt) + 3_600_000).toISOString(), revocationRequest)

      const b = await retrieveAndVerify(r, url, ctxId)
      expect((b.envelope.registry_receipt as { created_at: string }).created_at).toBe(lateAt)
      expect(outcomeOf(b.report)).toBe(scenario(rev2, 'B').outcome)
      expect(check(b.report, 'registry_receipt')).toMatchObject({ ok: true })
      expect(check(b.report, 'key_revocation')).toMatchObject({ ok: false })
      expect(check(b.report, 'key_revocation')?.detail).toContain('at or after the boundary')
      record(rev2, 'B')
    })

    it('rev-002 C: served without a receipt, the revoked key cannot be placed before T and fails closed', async () => {
      const dids = producerHosting()
      const live = await liveRegistry(preCompromiseAt, dids, false)
      const { r, url } = live
      const ctxId = await publishK1(live, preCompromiseAt)
      rotate(dids)
      await publishAt(r, rev1.vectors[0].registry_assigned.created_at, revocationRequest)

      const c = await retrieveAndVerify(r, url, ctxId)
      expect(c.envelope).not.toHaveProperty('registry_receipt')
      expect(c.revocations).toHaveLength(1)
      expect(outcomeOf(c.report)).toBe(scenario(rev2, 'C').outcome)
      // Even with K1 still in assertionMethod (revocation without rotation) the body's created_at places nothing.
      dids.host([k1, k2])
      const unrotated = await retrieveAndVerify(r, url, ctxId)
      expect(outcomeOf(unrotated.report)).toBe(scenario(rev2, 'C').outcome)
      expect(check(unrotated.report, 'signature')).toMatchObject({ ok: true })
      expect(check(unrotated.report, 'key_revocation')?.detail).toContain('no verified receipt')
      record(rev2, 'C')
    })

    it('rev-002 D: a registry-attested revocation is classified apart; one signed by K1 is refused', async () => {
      const dids = producerHosting()
      const live = await liveRegistry(preCompromiseAt, dids)
      const { r, url } = live
      const ctxId = await publishK1(live, preCompromiseAt, true)
      const { content_hash: _h, signature: _s, ...content } = revocationRequest
      r.clock.nowMs = Date.parse(rev1.vectors[0].registry_assigned.created_at)
      const selfSigned = await publish(r.app, signRequest(k1, content))
      expect(selfSigned.statusCode).toBe(403)
      expect(selfSigned.json()).toMatchObject({ error: { code: 'key_not_authorized' } })
      rotate(dids)
      const attested = {
        ...content,
        agent_id: registryKey.did,
        metadata: { ...revocationRequest.metadata, revoked_key_controller: producerDid },
      }
      const attestedId = await publishAt(r, r.clock.now().toISOString(), signRequest(registryKey, attested))

      const d = await retrieveAndVerify(r, url, ctxId)
      expect(attestedId).toMatch(/^acdp:\/\//)
      expect(d.revocations).toMatchObject([{ trustClass: 'registry-attested', controller: producerDid }])
      expect(outcomeOf(d.report)).toBe(scenario(rev2, 'D').outcome)
      const detail = check(d.report, 'key_revocation')?.detail ?? ''
      expect(detail).toContain('registry-attested')
      expect(detail).not.toContain('producer-signed')
      record(rev2, 'D')
    })
  })

  it('every rot-/rev- scenario ran on every database target', () => {
    // Runs after the per-target suites (vitest runs a file's tests in order).
    const incomplete = scenarioIds.filter((id) => (ran.get(id)?.size ?? 0) !== targets.length)
    expect(incomplete).toEqual([])
  })

  afterAll(() => {
    const done = scenarioIds.filter((id) => ran.get(id)?.size === targets.length).length
    console.log(
      `[consumer conformance] ${done}/${scenarioIds.length} rot-/rev- scenarios driven against a live registry ` +
        `(${targets.map((t) => t.name).join(', ')})`,
    )
  })
})
