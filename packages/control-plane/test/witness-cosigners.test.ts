/**
 * Who cosigned a witnessed head (migration 0850), on SQLite and PostgreSQL: a simulated registry aggregates
 * cosignatures of trusted, untrusted, wrongly signed and nameless witnesses plus our own one (taken from our
 * GET /log/witness, the loop a real registry closes); the witness records each with its standing and the quorum
 * minimum, and GET /registries/:authority/log-witness serves them (through its response schema, which drops any
 * member it does not declare).
 */
import { cosignCheckpoint, type LogCosignature } from '@acdp/protocol'
import { testDatabaseTargets } from '@acdp/storage'
import { sql } from 'kysely'
import { afterEach, describe, expect, it } from 'vitest'
import { fakeDidKeyProducer, type FakeProducer } from '../../protocol/test/support/fake-registry.js'
import { MAX_STORED_COSIGNERS } from '../src/witness/witness-store.js'
import type { SimulatedRegistry } from './support/log-registry-simulator.js'
import { type Json, openWitnessApp, WITNESS_ID, type WitnessTestApp } from './support/witness-app.js'

const trustedA = fakeDidKeyProducer(31)
const trustedB = fakeDidKeyProducer(32)
const stranger = fakeDidKeyProducer(33)

const QUORUM_ENV = {
  WITNESS_QUORUM_ENABLED: 'true',
  WITNESS_QUORUM_TRUSTED: `${trustedA.did},${trustedB.did}`,
  WITNESS_QUORUM_MIN_WITNESSES: '2',
}

describe.each(testDatabaseTargets())('witnessed head cosigners on $name', (target) => {
  let t: WitnessTestApp
  afterEach(async () => {
    await t?.close()
  })

  const cosign = (registry: SimulatedRegistry, witness: FakeProducer, signedBy: FakeProducer = witness) =>
    cosignCheckpoint({
      checkpoint: registry.signedCheckpoint(),
      witnessId: witness.did,
      witnessedAt: t.deps.clock(),
      key: { algorithm: 'ed25519', keyId: witness.keyId, privateKey: signedBy.privateKey },
    })

  const latest = async (registry: SimulatedRegistry): Promise<Json> => {
    const response = await t.get(`/registries/${registry.authority}/log-witness`)
    expect(response.statusCode).toBe(200)
    return response.json().checkpoints[0]
  }

  /** Polls once so we cosign the head, then serves `others` plus that cosignature of ours, and polls again. */
  async function observeWith(registry: SimulatedRegistry, others: () => unknown[]): Promise<Json> {
    expect(await t.nextPoll()).toBe(1)
    const ours = (
      await t.app.inject({ method: 'GET', url: `/log/witness?log_id=${encodeURIComponent(registry.logId)}` })
    ).json().witness_signatures[0] as LogCosignature
    expect(ours.witness_id).toBe(WITNESS_ID)
    registry.witnessSignatures = [...(others() as LogCosignature[]), ours]
    expect(await t.nextPoll()).toBe(1)
    return latest(registry)
  }

  it('records every standing with quorum consumption on: counted, untrusted, invalid, own', async () => {
    t = await openWitnessApp(target, QUORUM_ENV)
    const registry = await t.enroll('cosigned', 4)
    const head = await observeWith(registry, () => [
      cosign(registry, trustedA),
      cosign(registry, trustedA), // the same witness twice: one cosigner, counted once
      cosign(registry, trustedB, stranger), // trusted name, wrong key: the signature fails
      cosign(registry, stranger), // valid-looking, not trusted
      { note: 'names no witness' },
    ])
    expect(head).toMatchObject({ treeSize: 4, witnessedCount: 1, meetsQuorum: false, quorumMin: 2 })
    expect(head.cosigners).toEqual([
      { name: trustedA.did, standing: 'counted' },
      { name: WITNESS_ID, standing: 'own' },
      { name: stranger.did, standing: 'untrusted' },
      { name: trustedB.did, standing: 'invalid' },
      { name: null, standing: 'invalid' },
    ])

    // The next observation of the same head replaces the list: B now signs with its own key, quorum met.
    registry.witnessSignatures = [cosign(registry, trustedB), cosign(registry, trustedA)]
    expect(await t.nextPoll()).toBe(1)
    const again = await latest(registry)
    expect(again).toMatchObject({ treeSize: 4, witnessedCount: 2, meetsQuorum: true, quorumMin: 2 })
    expect(again.cosigners).toEqual([
      { name: trustedB.did, standing: 'counted' },
      { name: trustedA.did, standing: 'counted' },
    ])
    expect((await t.get('/dashboard/overview')).json().logWitness.headsMeetingQuorum).toBe(1)
  })

  it('records names as unchecked, ours as own, and no minimum with quorum consumption off', async () => {
    t = await openWitnessApp(target)
    const registry = await t.enroll('unchecked', 3)
    const head = await observeWith(registry, () => [cosign(registry, trustedA), cosign(registry, trustedB, stranger)])
    expect(head).toMatchObject({ witnessedCount: null, meetsQuorum: null, quorumMin: null })
    expect(head.cosigners).toEqual([
      { name: WITNESS_ID, standing: 'own' },
      { name: trustedA.did, standing: 'unchecked' },
      { name: trustedB.did, standing: 'unchecked' },
    ])
  })

  it('a bare checkpoint has no cosigners; a head observed before 0850 answers null', async () => {
    t = await openWitnessApp(target, QUORUM_ENV)
    const registry = await t.enroll('bare', 2)
    expect(await t.nextPoll()).toBe(1)
    expect(await latest(registry)).toMatchObject({ cosigners: [], witnessedCount: 0, quorumMin: 2 })
    // As a row written before the migration reads: both columns NULL.
    const db = t.deps.database.db
    await sql`UPDATE log_witness_checkpoints SET cosigners = NULL, quorum_min = NULL`.execute(db)
    expect(await latest(registry)).toMatchObject({ cosigners: null, quorumMin: null, witnessedCount: 0 })
  })

  it(`keeps at most ${MAX_STORED_COSIGNERS} cosigners, counted ones first, and counts before the cap`, async () => {
    t = await openWitnessApp(target, QUORUM_ENV)
    const registry = await t.enroll('crowded', 5)
    const crowd = Array.from({ length: 40 }, (_, i) => fakeDidKeyProducer(100 + i))
    const head = await observeWith(registry, () => [
      ...crowd.map((w) => cosign(registry, w)),
      cosign(registry, trustedA),
      cosign(registry, trustedB),
    ])
    expect(head).toMatchObject({ witnessedCount: 2, meetsQuorum: true })
    expect(head.cosigners).toHaveLength(MAX_STORED_COSIGNERS)
    expect(head.cosigners.slice(0, 3)).toEqual([
      { name: trustedA.did, standing: 'counted' },
      { name: trustedB.did, standing: 'counted' },
      { name: WITNESS_ID, standing: 'own' },
    ])
    expect(head.cosigners.slice(3)).toEqual(
      crowd.slice(0, MAX_STORED_COSIGNERS - 3).map((w) => ({ name: w.did, standing: 'untrusted' })),
    )
  })
})
