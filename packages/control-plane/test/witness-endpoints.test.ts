/**
 * Public cosigning endpoints (product spec "Witness cosigning"): served only with WITNESS_COSIGNING_ENABLED,
 * malformed filters are 400 schema_violation, most recent first, the documented media types and caching.
 */
import { testDatabaseTargets } from '@acdp/storage'
import { afterEach, describe, expect, it } from 'vitest'
import { openTestApp, type TestApp } from './support/test-app.js'
import { openWitnessApp, WITNESS_ID, type WitnessTestApp } from './support/witness-app.js'

const sqlite = testDatabaseTargets()[0]!

describe('witness cosigning endpoints', () => {
  let t: WitnessTestApp | TestApp | undefined
  afterEach(async () => {
    await t?.close()
    t = undefined
  })

  it('answer 404 when cosigning is off', async () => {
    t = await openTestApp(sqlite)
    for (const url of ['/log/witness', '/.well-known/acdp-witness.json', '/.well-known/did.json']) {
      const res = await t.app.inject({ method: 'GET', url })
      expect(res.statusCode).toBe(404)
      expect(res.json()).toMatchObject({ statusCode: 404, errorCode: 'NOT_FOUND' })
    }
  })

  it.each([
    ['a log_id that is not a did:web log id', '/log/witness?log_id=did:key:z6Mk/log/1'],
    ['a log_id with an uppercase instance', '/log/witness?log_id=did:web:a.example/log/ONE'],
    ['a negative tree_size', '/log/witness?tree_size=-1'],
    ['a fractional tree_size', '/log/witness?tree_size=1.5'],
    ['a tree_size beyond 2^53', '/log/witness?tree_size=99999999999999999'],
    ['a repeated parameter', '/log/witness?tree_size=1&tree_size=2'],
    ['an unknown parameter', '/log/witness?all=true'],
  ])('GET /log/witness with %s → 400 schema_violation', async (_name, url) => {
    const app = await openWitnessApp(sqlite)
    t = app
    const res = await app.app.inject({ method: 'GET', url })
    expect(res.statusCode).toBe(400)
    expect(res.json()).toEqual({ statusCode: 400, errorCode: 'schema_violation', message: expect.any(String) })
  })

  it('serves cosignatures most recent first, filtered by log_id and tree_size, without a credential', async () => {
    const app = await openWitnessApp(sqlite)
    t = app
    const a = await app.enroll('alpha', 2)
    const b = await app.enroll('beta', 1)
    await app.nextPoll()
    a.append(3)
    await app.nextPoll()
    const all = await app.app.inject({ method: 'GET', url: '/log/witness' })
    expect(all.statusCode).toBe(200)
    expect(all.headers['content-type']).toMatch(/^application\/acdp\+json/)
    const body = all.json()
    expect(body.witness_id).toBe(WITNESS_ID)
    expect(body.witness_signatures).toHaveLength(4)
    const witnessedAt = body.witness_signatures.map((c: { witnessed_at: string }) => c.witnessed_at)
    expect([...witnessedAt].sort().reverse()).toEqual(witnessedAt)
    const alpha = await app.app.inject({
      method: 'GET',
      url: `/log/witness?log_id=${encodeURIComponent(a.logId)}&tree_size=5`,
    })
    expect(alpha.json().witness_signatures).toEqual([
      expect.objectContaining({
        cosignature_version: 'acdp-cosig/1',
        witness_id: WITNESS_ID,
        witnessed_checkpoint: expect.objectContaining({ log_id: a.logId, tree_size: 5 }),
        signature: expect.objectContaining({ algorithm: 'ed25519', key_id: `${WITNESS_ID}#witness-key-1` }),
      }),
    ])
    const capabilities = await app.app.inject({ method: 'GET', url: '/.well-known/acdp-witness.json' })
    expect(capabilities.headers['cache-control']).toBe('public, max-age=300')
    expect(capabilities.json()).toEqual({
      witness_id: WITNESS_ID,
      profiles: ['acdp-log-witness'],
      covered_logs: [a.logId, b.logId].sort(),
      cosignature_endpoint: '/log/witness',
    })
    const did = await app.app.inject({ method: 'GET', url: '/.well-known/did.json' })
    expect(did.statusCode).toBe(200)
    expect(did.json()).toMatchObject({
      id: WITNESS_ID,
      verificationMethod: [{ id: `${WITNESS_ID}#witness-key-1`, type: 'Ed25519VerificationKey2020' }],
    })
  })
})
