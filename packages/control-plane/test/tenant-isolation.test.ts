/**
 * Tenancy (product spec "Authentication" rule 6) end to end, on every dialect: two tenants, each with a tenant-bound
 * key and an agent token, never see each other's runs, events, agents, registries, capabilities, webhooks or
 * streams; and every key/JWT route refuses a reserved or disagreeing X-Tenant-Id.
 */
import { request as httpRequest } from 'node:http'
import { testDatabaseTargets } from '@acdp/storage'
import { afterEach, describe, expect, it } from 'vitest'
import { createTestAgent, issueToken } from './support/agent-keys.js'
import { publishedEvent, signedDelivery } from './support/signed-delivery.js'
import { bearer, openTestApp, T0, type TestApp } from './support/test-app.js'

const ACME_KEY = 'acme-key-0123456789abcdef'
const GLOBEX_KEY = 'globex-key-0123456789abcdef'
const acmeAgent = createTestAgent('acme-bot')
const globexAgent = createTestAgent('globex-bot')
const ENV = {
  TENANT_API_KEYS: `acme:${ACME_KEY},globex:${GLOBEX_KEY}`,
  AUTH_REQUIRE_TENANT: 'true',
  TOKEN_ISSUANCE_ENABLED: 'true',
  JWT_SECRET: 'jwt-secret-0123456789abcdef0123456789',
  CONTROL_PLANE_PINNED_KEYS: [acmeAgent.pinnedEntry(), globexAgent.pinnedEntry()].join(','),
  TENANT_AGENTS: `acme:${acmeAgent.did},globex:${globexAgent.did}`,
  OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32',
  OUTBOUND_ALLOW_HTTP: 'true',
}

/** Key/JWT routes whose answers must be tenant-scoped (GET). */
const READS = [
  '/runs',
  '/runs/{run}',
  '/runs/{run}/events',
  '/runs/{run}/lineage',
  '/events',
  '/agents',
  '/agents/{agent}',
  '/registries',
  '/registries/enrollments',
  '/capabilities/search?capability=urn:acdp:cap:read:note:ops',
  '/capabilities/by-agent/{agent}',
  '/webhooks',
  '/dashboard/overview',
]

describe.each(testDatabaseTargets())('tenant isolation on $name', (target) => {
  let t: TestApp
  afterEach(async () => {
    await t?.close()
  })

  async function seed(tenant: 'acme' | 'globex', credential: string, agentDid: string) {
    const publish = await t.app.inject(
      signedDelivery(publishedEvent({ run_id: `run-${tenant}`, agent_id: agentDid }), {
        headers: { 'x-tenant-id': tenant },
      }),
    )
    expect(publish.statusCode).toBe(204)
    const agent = tenant === 'acme' ? acmeAgent : globexAgent
    const at = new Date(T0).toISOString()
    const uri = 'urn:acdp:cap:read:note:ops'
    const capability = await t.app.inject({
      method: 'POST',
      url: '/capabilities',
      headers: bearer(credential),
      payload: {
        agent_did: agent.did,
        capability_uri: uri,
        declared_at: at,
        key_id: agent.keyId,
        algorithm: 'ed25519',
        signature: agent.sign(`acdp-cap:v1:${agent.did}:${uri}:${at}`),
      },
    })
    expect(capability.statusCode).toBe(201)
    const webhook = await t.app.inject({
      method: 'POST',
      url: '/webhooks',
      headers: bearer(credential),
      payload: { url: `http://127.0.0.1:9/${tenant}`, secret: `${tenant}-subscription-secret-0123` },
    })
    expect(webhook.statusCode).toBe(201)
  }

  it('shows each tenant only its own data on every read, with keys and with agent tokens', async () => {
    t = await openTestApp(target, ENV)
    const acmeToken = await issueToken(t.app, acmeAgent)
    const globexToken = await issueToken(t.app, globexAgent)
    await seed('acme', ACME_KEY, acmeAgent.did)
    await seed('globex', globexToken, globexAgent.did)
    const views = [
      {
        tenant: 'acme',
        other: 'globex',
        credentials: [ACME_KEY, acmeToken],
        agent: acmeAgent.did,
        otherAgent: globexAgent.did,
      },
      {
        tenant: 'globex',
        other: 'acme',
        credentials: [GLOBEX_KEY, globexToken],
        agent: globexAgent.did,
        otherAgent: acmeAgent.did,
      },
    ]
    for (const view of views) {
      for (const credential of view.credentials) {
        for (const template of READS) {
          const own = template.replace('{run}', `run-${view.tenant}`).replace('{agent}', view.agent)
          const res = await t.app.inject({ method: 'GET', url: own, headers: bearer(credential) })
          expect(res.statusCode, own).toBe(200)
          expect(res.body, own).not.toContain(view.other)
          expect(res.body, own).not.toContain(view.otherAgent)
          if (
            !own.startsWith('/dashboard') &&
            !own.endsWith('/lineage') &&
            !own.startsWith('/registries/enrollments')
          ) {
            expect(res.body, own).toContain(
              own.startsWith('/webhooks') ? `/${view.tenant}` : view.tenant === 'acme' ? 'acme' : 'globex',
            )
          }
          if (template.includes('{')) {
            const foreign = template.replace('{run}', `run-${view.other}`).replace('{agent}', view.otherAgent)
            const miss = await t.app.inject({ method: 'GET', url: foreign, headers: bearer(credential) })
            expect(miss.body, foreign).not.toContain(view.otherAgent)
            if (foreign.startsWith('/runs/') && !foreign.endsWith('/events') && !foreign.endsWith('/lineage')) {
              expect(miss.statusCode, foreign).toBe(404)
            }
            if (foreign.startsWith('/agents/')) expect(miss.statusCode, foreign).toBe(404)
          }
        }
      }
    }
  })

  it('refuses a reserved or disagreeing X-Tenant-Id on every key/JWT route', async () => {
    t = await openTestApp(target, ENV)
    const token = await issueToken(t.app, acmeAgent)
    for (const credential of [ACME_KEY, token]) {
      for (const template of READS) {
        const url = template.replace('{run}', 'run-acme').replace('{agent}', acmeAgent.did)
        const reserved = await t.app.inject({
          method: 'GET',
          url,
          headers: { ...bearer(credential), 'x-tenant-id': 'default' },
        })
        expect(reserved.json(), url).toMatchObject({ statusCode: 403, errorCode: 'TENANT_RESERVED' })
        const mismatch = await t.app.inject({
          method: 'GET',
          url,
          headers: { ...bearer(credential), 'x-tenant-id': 'globex' },
        })
        expect(mismatch.json(), url).toMatchObject({ statusCode: 403, errorCode: 'TENANT_MISMATCH' })
      }
    }
  })

  it('streams only the caller’s tenant events over a real socket', async () => {
    t = await openTestApp(target, ENV)
    const token = await issueToken(t.app, acmeAgent)
    await t.app.listen({ host: '127.0.0.1', port: 0 })
    const port = (t.app.server.address() as { port: number }).port
    let received = ''
    const done = new Promise<void>((resolve, reject) => {
      const req = httpRequest(
        { host: '127.0.0.1', port, path: '/events/stream', headers: { accept: 'text/event-stream', ...bearer(token) } },
        (res) => {
          expect(res.statusCode).toBe(200)
          res.setEncoding('utf8')
          res.on('data', (chunk: string) => {
            received += chunk
            if (received.includes('run-acme-live')) {
              req.destroy()
              resolve()
            }
          })
        },
      )
      req.on('error', (error) => (received.includes('run-acme-live') ? resolve() : reject(error)))
      req.end()
    })
    await new Promise((resolve) => setTimeout(resolve, 100))
    await t.app.inject(
      signedDelivery(publishedEvent({ run_id: 'run-globex-live' }), { headers: { 'x-tenant-id': 'globex' } }),
    )
    await t.app.inject(
      signedDelivery(publishedEvent({ run_id: 'run-acme-live' }), { headers: { 'x-tenant-id': 'acme' } }),
    )
    await done
    expect(received).toContain('run-acme-live')
    expect(received).not.toContain('run-globex-live')
  })
})
