/**
 * Redirects followed by hand (RFC-ACDP-0006 §7.5): same (scheme, host, effective port) only, at most
 * maxRedirects, method rewriting per status, credentials stripped, no fresh DNS lookup on a hop.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createOutboundClient, type OutboundPolicy } from '../src/outbound/index.js'
import { createFakeDns } from './support/fake-dns.js'
import { expectOutboundError } from './support/outbound-errors.js'
import { createTestPki, type TestPki } from './support/test-ca.js'
import { startHttpsTestServer, startHttpTestServer, type TestServer } from './support/test-servers.js'

let pki: TestPki
let server: TestServer
let otherPort: TestServer
let plain: TestServer
const dns = createFakeDns({ 'good.test': ['127.0.0.1'], 'other.test': ['127.0.0.1'] })

function policy(overrides: Partial<OutboundPolicy> = {}): OutboundPolicy {
  return {
    allowCidrs: ['127.0.0.1/32'],
    trustedCaCertificates: [pki.caPem],
    lookup: dns.lookup,
    totalTimeoutMs: 5000,
    ...overrides,
  }
}

function redirectUrl(status: number, to: string): string {
  return `https://good.test:${server.port}/redirect?status=${status}&to=${encodeURIComponent(to)}`
}

beforeAll(async () => {
  pki = createTestPki({ dnsNames: ['good.test', 'other.test'], ipAddresses: ['127.0.0.1'] })
  server = await startHttpsTestServer(pki)
  otherPort = await startHttpsTestServer(pki)
  plain = await startHttpTestServer()
})

afterAll(async () => {
  await Promise.all([server.close(), otherPort.close(), plain.close()])
})

describe('outbound client: same-authority redirects are followed', () => {
  it.each([
    ['relative path', '/ok'],
    ['absolute same origin', () => `https://good.test:${server.port}/ok`],
    ['uppercase host', () => `https://GOOD.TEST:${server.port}/ok`],
  ])('follows a 302 to a %s', async (_name, to) => {
    const client = createOutboundClient(policy())
    const calls = dns.calls.length
    const target = typeof to === 'function' ? to() : to
    const res = await client.request(redirectUrl(302, target))
    expect(res.status).toBe(200)
    expect(Buffer.from(res.body).toString()).toBe('ok')
    expect(res.url).toBe(`https://good.test:${server.port}/ok`)
    expect(dns.calls.length - calls).toBe(1) // the hop reuses the pinned resolution
    await client.close()
  })

  it.each([
    [301, 'GET', ''],
    [302, 'GET', ''],
    [303, 'GET', ''],
    [307, 'POST', '{"n":1}'],
    [308, 'POST', '{"n":1}'],
  ])('%s after a POST continues as %s', async (status, method, body) => {
    const client = createOutboundClient(policy())
    const res = await client.request(redirectUrl(status, '/echo'), {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer secret', 'x-keep': 'kept' },
      body: '{"n":1}',
    })
    const echoed = JSON.parse(Buffer.from(res.body).toString())
    expect(echoed).toMatchObject({ method, body })
    expect(echoed.headers.authorization).toBeUndefined()
    expect(echoed.headers['x-keep']).toBe('kept')
    if (method === 'GET') expect(echoed.headers['content-type']).toBeUndefined()
    await client.close()
  })

  it('follows exactly maxRedirects hops', async () => {
    const client = createOutboundClient(policy())
    const res = await client.request(`https://good.test:${server.port}/chain/3`)
    expect(res.status).toBe(200)
    expect(res.url).toBe(`https://good.test:${server.port}/chain/0`)
    const custom = await client.request(`https://good.test:${server.port}/chain/5`, { maxRedirects: 5 })
    expect(custom.status).toBe(200)
    await client.close()
  })
})

describe('outbound client: redirects that leave the authority or exceed the cap are refused', () => {
  it('refuses one hop more than maxRedirects', async () => {
    const client = createOutboundClient(policy())
    await expectOutboundError(client.request(`https://good.test:${server.port}/chain/4`), 'outbound_refused', {
      reason: 'too_many_redirects',
      limit: 3,
    })
    await expectOutboundError(
      client.request(`https://good.test:${server.port}/chain/2`, { maxRedirects: 1 }),
      'outbound_refused',
      { reason: 'too_many_redirects', limit: 1 },
    )
    await client.close()
  })

  it('refuses any redirect when maxRedirects is 0', async () => {
    const client = createOutboundClient(policy({ maxRedirects: 0 }))
    await expectOutboundError(client.request(redirectUrl(302, '/ok')), 'outbound_refused', {
      reason: 'too_many_redirects',
      status: 302,
    })
    await client.close()
  })

  it.each([
    ['another host on the same address and port', () => `https://other.test:${server.port}/ok`],
    ['the same host on another port', () => `https://good.test:${otherPort.port}/ok`],
    ['the same server by IP literal', () => `https://127.0.0.1:${server.port}/ok`],
    ['http on the same host and port', () => `http://good.test:${server.port}/ok`],
    ['an http server on the same host', () => `http://good.test:${plain.port}/ok`],
    ['the cloud metadata address', () => 'https://169.254.169.254/latest/meta-data/'],
    ['the default port', () => 'https://good.test/ok'],
  ])('refuses a redirect to %s', async (_name, to) => {
    const client = createOutboundClient(policy({ allowHttpForAllowlisted: true }))
    const otherBefore = otherPort.connections.length
    const plainBefore = plain.connections.length
    await expectOutboundError(client.request(redirectUrl(302, to())), 'outbound_refused', {
      reason: 'redirect_cross_origin',
    })
    expect(otherPort.connections.length).toBe(otherBefore)
    expect(plain.connections.length).toBe(plainBefore)
    await client.close()
  })

  it('refuses a redirect to a URL with credentials', async () => {
    const client = createOutboundClient(policy())
    await expectOutboundError(
      client.request(redirectUrl(302, `https://u:p@good.test:${server.port}/ok`)),
      'outbound_refused',
      { reason: 'credentials_in_url' },
    )
    await client.close()
  })

  it('reports an unparseable Location as outbound_failed invalid_redirect', async () => {
    const client = createOutboundClient(policy())
    await expectOutboundError(client.request(redirectUrl(302, 'https://[zz')), 'outbound_failed', {
      reason: 'invalid_redirect',
    })
    await client.close()
  })
})
