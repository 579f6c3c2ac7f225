/**
 * GET /registries/:authority/{capabilities,did-document,log-evidence} against the registry simulator (real HTTPS on
 * loopback through the app's one SSRF-safe outbound client): the enrolled registry's profiles, its DID document
 * (relayed as served, cached briefly), inclusion evidence with the checkpoint's cosignatures, errors in the
 * envelope, and tenant isolation. Runs on every dialect.
 */
import { testDatabaseTargets } from '@acdp/storage'
import { afterEach, describe, expect, it } from 'vitest'
import { ADMIN_KEY, bearer } from './support/test-app.js'
import { openWitnessApp, type WitnessTestApp } from './support/witness-app.js'

const CTX = '0b6f8f7e-3c1a-4d2b-9e8f-1a2b3c4d5e6f'

describe.each(testDatabaseTargets())('registry trust relay on $name', (target) => {
  let t: WitnessTestApp
  afterEach(async () => {
    await t.close()
  })

  it('serves the advertised profiles and the registry DID of an enrolled registry', async () => {
    t = await openWitnessApp(target)
    const registry = await t.enroll('alpha', 3)
    const res = await t.get(`/registries/${registry.authority}/capabilities`)
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({
      authority: registry.authority,
      registryDid: registry.registryDid,
      profiles: ['acdp-registry-core', 'acdp-registry-receipts', 'acdp-registry-transparency-log'],
    })
  })

  it('relays the DID document exactly as served and reuses it within the cache window', async () => {
    t = await openWitnessApp(target)
    const registry = await t.enroll('beta')
    const first = await t.get(`/registries/${registry.authority}/did-document`)
    expect(first.statusCode).toBe(200)
    const body = first.json()
    expect(body.did).toBe(registry.registryDid)
    const document = JSON.parse(body.document)
    expect(document.id).toBe(registry.registryDid)
    expect(document.assertionMethod).toEqual([`${registry.registryDid}#receipt-key-1`])
    const second = await t.get(`/registries/${registry.authority}/did-document`)
    expect(second.json()).toEqual(body)
    expect(registry.hits.get('/.well-known/did.json')).toBe(1)
  })

  it('relays inclusion evidence with the cosignatures of the checkpoint it is proven under', async () => {
    t = await openWitnessApp(target)
    const registry = await t.enroll('gamma', 4)
    const proof = { log_id: registry.logId, leaf_index: 2, tree_size: 4, inclusion_path: [] }
    registry.behaviour = { kind: 'raw_proof', body: JSON.stringify(proof) }
    const ctxId = `acdp://${registry.authority}/${CTX}`
    const bare = await t.get(`/registries/${registry.authority}/log-evidence?ctxId=${encodeURIComponent(ctxId)}`)
    expect(bare.statusCode).toBe(200)
    expect(bare.json()).toEqual({ log_inclusion: proof, witness_signatures: null })
    const cosignature = { cosignature_version: 'acdp-cosig/1', witness_id: 'did:web:w.example' }
    registry.witnessSignatures = [cosignature as never]
    const cosigned = await t.get(`/registries/${registry.authority}/log-evidence?ctxId=${encodeURIComponent(ctxId)}`)
    expect(cosigned.json()).toEqual({ log_inclusion: proof, witness_signatures: [cosignature] })
  })

  it('answers null evidence for a registry that does not advertise the log', async () => {
    t = await openWitnessApp(target)
    const registry = await t.enroll('delta', 2)
    registry.behaviour = { kind: 'no_log_profile' }
    const ctxId = `acdp://${registry.authority}/${CTX}`
    const res = await t.get(`/registries/${registry.authority}/log-evidence?ctxId=${encodeURIComponent(ctxId)}`)
    expect(res.statusCode).toBe(200)
    expect(res.json()).toEqual({ log_inclusion: null, witness_signatures: null })
    expect(registry.hits.get('/log/proof')).toBeUndefined()
  })

  it('refuses a ctxId of another authority, and reports an unreachable registry as 502', async () => {
    t = await openWitnessApp(target)
    const registry = await t.enroll('epsilon', 1)
    const foreign = encodeURIComponent(`acdp://other.example/${CTX}`)
    const mismatch = await t.get(`/registries/${registry.authority}/log-evidence?ctxId=${foreign}`)
    expect(mismatch.statusCode).toBe(400)
    expect(mismatch.json().errorCode).toBe('VALIDATION_ERROR')
    registry.behaviour = { kind: 'unreachable' }
    const down = await t.get(`/registries/${registry.authority}/capabilities`)
    expect(down.statusCode).toBe(502)
    expect(down.json()).toMatchObject({ errorCode: 'FEDERATION_UPSTREAM_ERROR' })
    expect(down.json().message).toContain('http_503')
  })

  it('gates log evidence like the federation proxy: a context.retrieve deny is 403 before any fetch', async () => {
    t = await openWitnessApp(target, {
      POLICY_RULES: JSON.stringify([
        { action: 'context.retrieve', effect: 'deny', resources: ['acdp://*'], code: 'blocked' },
      ]),
    })
    const registry = await t.enroll('eta', 1)
    const ctxId = encodeURIComponent(`acdp://${registry.authority}/${CTX}`)
    const res = await t.get(`/registries/${registry.authority}/log-evidence?ctxId=${ctxId}`)
    expect(res.statusCode).toBe(403)
    expect(res.json()).toMatchObject({ errorCode: 'POLICY_DENIED', code: 'blocked' })
    expect(registry.hits.size).toBe(0)
  })

  it("is tenant-scoped: another tenant's enrollment and an unknown authority are 404, and nothing is fetched", async () => {
    t = await openWitnessApp(target)
    const registry = await t.enroll('zeta', 1)
    const other = await t.app.inject({
      method: 'GET',
      url: `/registries/${registry.authority}/capabilities`,
      headers: { ...bearer(ADMIN_KEY), 'x-tenant-id': 'someone-else' },
    })
    expect(other.statusCode).toBe(404)
    expect(other.json().errorCode).toBe('REGISTRY_NOT_FOUND')
    const unknown = await t.get('/registries/nobody.reg.test/did-document')
    expect(unknown.statusCode).toBe(404)
    expect(registry.hits.size).toBe(0)
    const anonymous = await t.app.inject({ method: 'GET', url: `/registries/${registry.authority}/capabilities` })
    expect(anonymous.statusCode).toBe(401)
  })
})
