/**
 * The log witness against the dishonest-registry simulator (real HTTPS on loopback, real signatures, real Merkle
 * trees): every lie is caught within one poll with the right alert reason, the retained head never moves on an
 * alert, nothing dishonest is ever cosigned, alerts fan out to streams and webhooks, and the state table
 * (acknowledge, resurface, auto-clear) holds. Runs on every dialect.
 */
import { testDatabaseTargets } from '@acdp/storage'
import { afterEach, describe, expect, it } from 'vitest'
import type { RegistryBehaviour, SimulatedRegistry } from './support/log-registry-simulator.js'
import { type Json, openWitnessApp, TENANT, type WitnessTestApp } from './support/witness-app.js'

async function state(t: WitnessTestApp, registry: SimulatedRegistry) {
  const res = await t.get(`/registries/${registry.authority}/log-witness`)
  expect(res.statusCode).toBe(200)
  return res.json()
}

async function cosignedRoots(t: WitnessTestApp): Promise<string[]> {
  const res = await t.app.inject({ method: 'GET', url: '/log/witness' })
  expect(res.statusCode).toBe(200)
  return res.json().witness_signatures.map((c: Json) => c.witnessed_checkpoint.root_hash)
}

const DISHONEST: Array<{ name: string; reason: string; lie: (r: SimulatedRegistry) => RegistryBehaviour | void }> = [
  { name: 'rewrite of an old leaf', reason: 'consistency_failed', lie: (r) => (r.rewriteLeaf(2), r.append(3)) },
  { name: 'split view at the retained size', reason: 'root_mismatch', lie: () => ({ kind: 'split_view' }) },
  { name: 'tree-size regression', reason: 'tree_size_regression', lie: () => ({ kind: 'regression', treeSize: 3 }) },
  { name: 'reset to empty', reason: 'log_reset', lie: () => ({ kind: 'reset_to_empty' }) },
  { name: 'bad checkpoint signature', reason: 'checkpoint_signature_invalid', lie: () => ({ kind: 'bad_signature' }) },
  { name: 'wrong log id (foreign DID)', reason: 'registry_binding_mismatch', lie: () => ({ kind: 'wrong_log_id' }) },
  { name: 'future timestamp', reason: 'checkpoint_timestamp_in_future', lie: () => ({ kind: 'future_timestamp' }) },
  { name: 'new log instantiation', reason: 'log_id_changed', lie: () => ({ kind: 'new_instance' }) },
  {
    name: 'a body that is not JSON',
    reason: 'checkpoint_invalid',
    lie: () => ({ kind: 'raw_checkpoint', body: '<html>' }),
  },
  { name: 'a JSON array', reason: 'checkpoint_invalid', lie: () => ({ kind: 'raw_checkpoint', body: '[1,2]' }) },
  {
    name: 'a checkpoint with a duplicate key',
    reason: 'checkpoint_invalid',
    lie: (r) => {
      const text = JSON.stringify(r.signedCheckpoint())
      return { kind: 'raw_checkpoint', body: text.replace('{', '{"tree_size":1,') }
    },
  },
  {
    name: 'a checkpoint with an extra member',
    reason: 'checkpoint_invalid',
    lie: (r) => ({ kind: 'raw_checkpoint', body: JSON.stringify({ ...r.signedCheckpoint(), extra: true }) }),
  },
  {
    name: 'a proof whose path is not hashes',
    reason: 'consistency_failed',
    lie: (r) => {
      r.append(3)
      const body = { log_id: r.logId, first_tree_size: 8, second_tree_size: 11, consistency_path: ['sha256:zz'] }
      return { kind: 'raw_proof', body: JSON.stringify(body) }
    },
  },
  {
    name: 'a proof carrying a checkpoint of another root at the same size',
    reason: 'root_mismatch',
    lie: (r) => (r.append(2), { kind: 'forked_proof_checkpoint' }),
  },
  {
    name: 'refusing the consistency proof',
    reason: 'consistency_failed',
    lie: (r) => (r.append(2), { kind: 'refuse_proofs' }),
  },
]

describe.each(testDatabaseTargets())('log witness on $name', (target) => {
  let t: WitnessTestApp
  afterEach(async () => {
    await t?.close()
  })

  it.each(DISHONEST)('detects $name as $reason within one poll and never cosigns it', async ({ lie, reason }) => {
    t = await openWitnessApp(target)
    const registry = await t.enroll('liar', 8)
    expect(await t.nextPoll()).toBe(1)
    const honest = await state(t, registry)
    expect(honest).toMatchObject({ logId: registry.logId, treeSize: 8, alert: null, consecutiveFailures: 0 })
    const honestRoots = await cosignedRoots(t)

    const behaviour = lie(registry)
    if (behaviour) registry.behaviour = behaviour
    await t.nextPoll()

    const after = await state(t, registry)
    expect(after.alert).toMatchObject({ reason, authority: registry.authority, acknowledgedAt: null })
    // The retained head is untouched by a failed check.
    expect(after).toMatchObject({ logId: honest.logId, treeSize: honest.treeSize, rootHash: honest.rootHash })
    // Nothing new was cosigned.
    expect(await cosignedRoots(t)).toEqual(honestRoots)
    const alerts = (await t.get('/registries/log-witness/alerts')).json()
    expect(alerts.data.map((a: Json) => a.reason)).toEqual([reason])
    // Fanned out to the live streams, once.
    const announced = t.published.filter((e) => e.type === 'log_witness_alert')
    expect(announced).toHaveLength(1)
    expect(JSON.parse(announced[0]!.data)).toMatchObject({
      registryAuthority: registry.authority,
      eventId: after.alert.id,
    })
    expect(await t.counter('acdp_log_witness_alerts_total', { reason })).toBe(1)
  })

  it('keeps both checkpoints and the failing proof as evidence of a rewrite (RFC-ACDP-0015 §7)', async () => {
    t = await openWitnessApp(target)
    const registry = await t.enroll('rewriter', 6)
    await t.nextPoll()
    registry.rewriteLeaf(1)
    registry.append(4)
    await t.nextPoll()
    const { alert } = await state(t, registry)
    expect(alert.detail).toMatchObject({
      code: 'INVALID_LOG_PROOF',
      reason: 'consistency_failed',
      previous: { log_id: registry.logId, tree_size: 6 },
      checkpoint: { log_id: registry.logId, tree_size: 10 },
      evidence: { retained_head: { tree_size: 6 }, presented_checkpoint: { tree_size: 10 } },
    })
    expect(alert.detail.evidence.consistency_path.length).toBeGreaterThan(0)
    expect(alert.detail.checkpoint.signature.key_id).toBe(`${registry.registryDid}#receipt-key-1`)
  })

  it('an honest registry over 1,000 checkpoints raises no alert and is cosigned at every observation', async () => {
    t = await openWitnessApp(target, { WITNESS_COSIGNATURES_KEPT_PER_LOG: '5', LOG_WITNESS_CHECKPOINTS_KEPT: '50' })
    const registry = await t.enroll('honest', 1)
    for (let poll = 0; poll < 1000; poll++) {
      // Growth of 0..3 leaves per poll: unchanged heads (liveness), single appends and power-of-two crossings.
      registry.append(poll % 4)
      await t.nextPoll()
    }
    const final = await state(t, registry)
    expect(final).toMatchObject({ alert: null, treeSize: registry.tree.size, consecutiveFailures: 0 })
    expect((await t.get('/registries/log-witness/alerts?includeAcknowledged=true')).json().total).toBe(0)
    expect(await t.counter('acdp_log_witness_checks_total', { result: 'witnessed' })).toBe(1000)
    expect(await t.counter('acdp_log_cosignatures_total', { result: 'minted' })).toBe(1000)
    // Retention bounds what is kept: the newest 5 cosignatures, the newest 50 evidence rows.
    expect(await cosignedRoots(t)).toHaveLength(5)
    expect(final.total).toBe(50)
    expect(final.checkpoints[0]).toMatchObject({ treeSize: registry.tree.size, consistencyOk: true })
  }, 120_000)

  it('acknowledge → resurfaces on a different reason → clears on a verified checkpoint (spec state table)', async () => {
    t = await openWitnessApp(target)
    const registry = await t.enroll('flaky', 4)
    await t.nextPoll()
    // ack without an active alert: 404
    expect((await t.postAdmin(`/registries/${registry.authority}/log-witness/ack`)).statusCode).toBe(404)

    registry.behaviour = { kind: 'split_view' }
    await t.nextPoll()
    const ack = await t.postAdmin(`/registries/${registry.authority}/log-witness/ack`)
    expect(ack.statusCode).toBe(200)
    expect(ack.json()).toMatchObject({ reason: 'root_mismatch', acknowledgedBy: expect.any(String) })
    expect(ack.json().acknowledgedAt).toEqual(expect.any(String))
    expect((await t.get('/registries/log-witness/alerts')).json().total).toBe(0)
    expect((await t.get('/registries/log-witness/alerts?includeAcknowledged=true')).json().total).toBe(1)
    // Acknowledgement does not clear, and the same reason again stays acknowledged and is not re-announced.
    await t.nextPoll()
    expect((await state(t, registry)).alert).toMatchObject({
      reason: 'root_mismatch',
      acknowledgedAt: expect.any(String),
    })
    expect(t.published.filter((e) => e.type === 'log_witness_alert')).toHaveLength(1)

    registry.behaviour = { kind: 'bad_signature' }
    await t.nextPoll()
    const resurfaced = (await t.get('/registries/log-witness/alerts')).json()
    expect(resurfaced.data).toEqual([
      expect.objectContaining({ reason: 'checkpoint_signature_invalid', acknowledgedAt: null }),
    ])
    expect(t.published.filter((e) => e.type === 'log_witness_alert')).toHaveLength(2)

    registry.behaviour = { kind: 'honest' }
    registry.append(2)
    await t.nextPoll()
    expect((await state(t, registry)).alert).toBeNull()
    expect((await t.get('/registries/log-witness/alerts?includeAcknowledged=true')).json().total).toBe(0)
    expect(t.published.filter((e) => e.type === 'log_witness_alert_cleared')).toHaveLength(1)
    expect((await t.postAdmin(`/registries/${registry.authority}/log-witness/ack`)).statusCode).toBe(404)
  })

  it('an outage is counted, alerts as unreachable past the threshold, and clears when the registry answers', async () => {
    t = await openWitnessApp(target)
    const registry = await t.enroll('down', 3)
    await t.nextPoll()
    registry.behaviour = { kind: 'unreachable' }
    await t.nextPoll()
    expect(await state(t, registry)).toMatchObject({ consecutiveFailures: 1, lastFailure: 'http_503', alert: null })
    await t.nextPoll()
    expect((await state(t, registry)).alert).toMatchObject({ reason: 'unreachable' })
    registry.behaviour = { kind: 'honest' }
    await t.nextPoll()
    expect(await state(t, registry)).toMatchObject({ consecutiveFailures: 0, alert: null, treeSize: 3 })
  })

  it('skips registries without the log profile and disabled enrollments', async () => {
    t = await openWitnessApp(target)
    const plain = await t.enroll('plain', 2)
    plain.behaviour = { kind: 'no_log_profile' }
    const disabled = await t.enroll('disabled', 2)
    await t.store.upsertEnrollment({ authority: disabled.authority, tenantId: TENANT, enabled: false, now: 0 })
    await t.nextPoll()
    expect(await state(t, plain)).toMatchObject({ logId: null, alert: null, consecutiveFailures: 0 })
    expect(plain.hits.get('/log/checkpoint')).toBeUndefined()
    expect(disabled.hits.size).toBe(0)
    expect(await t.counter('acdp_log_witness_checks_total', { result: 'not_a_log' })).toBe(1)
  })

  it('an enrolled registryDid that differs from the log DID is a binding mismatch', async () => {
    t = await openWitnessApp(target)
    const registry = await t.enroll('pinned', 2)
    await t.store.upsertEnrollment({
      authority: registry.authority,
      tenantId: TENANT,
      registryDid: 'did:web:someone-else.example',
      now: 0,
    })
    await t.nextPoll()
    expect((await state(t, registry)).alert).toMatchObject({
      reason: 'registry_binding_mismatch',
      detail: { error: 'capabilities_registry_did_mismatch' },
    })
  })

  it('ack is admin-only, and every witness read is tenant-scoped', async () => {
    t = await openWitnessApp(target)
    const registry = await t.enroll('scoped', 2)
    await t.nextPoll()
    registry.behaviour = { kind: 'reset_to_empty' }
    await t.nextPoll()
    const userAck = await t.app.inject({
      method: 'POST',
      url: `/registries/${registry.authority}/log-witness/ack`,
      headers: { authorization: 'Bearer user-key-0123456789abcdef', 'x-tenant-id': TENANT },
    })
    expect(userAck.statusCode).toBe(403)
    const otherTenant = { authorization: 'Bearer user-key-0123456789abcdef', 'x-tenant-id': 'other' }
    const foreign = await t.app.inject({
      method: 'GET',
      url: `/registries/${registry.authority}/log-witness`,
      headers: otherTenant,
    })
    expect(foreign.statusCode).toBe(404)
    expect(foreign.json()).toMatchObject({ statusCode: 404, errorCode: 'REGISTRY_NOT_FOUND' })
    const foreignAlerts = await t.app.inject({
      method: 'GET',
      url: '/registries/log-witness/alerts',
      headers: otherTenant,
    })
    expect(foreignAlerts.json().total).toBe(0)
    const dashboard = (await t.get('/dashboard/overview')).json()
    expect(dashboard.logWitness).toEqual({
      witnessedLogs: 1,
      activeAlerts: 1,
      unacknowledgedAlerts: 1,
      headsMeetingQuorum: 0,
    })
  })
})
