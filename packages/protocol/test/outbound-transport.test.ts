/**
 * The outbound client against real loopback servers with a test CA created in this run: allowlisted reach,
 * TLS identity by hostname, http for allowlisted dev addresses, status pass-through, transport failures.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createOutboundClient, type OutboundPolicy } from '../src/outbound/index.js'
import { createFakeDns } from './support/fake-dns.js'
import { expectOutboundError } from './support/outbound-errors.js'
import { createTestPki, type TestPki } from './support/test-ca.js'
import {
  canListenOn,
  findClosedPort,
  startHttpsTestServer,
  startHttpTestServer,
  type TestServer,
} from './support/test-servers.js'

const NAMES = { dnsNames: ['good.test', 'other.test', 'v6.test', 'two.test'], ipAddresses: ['127.0.0.1', '::1'] }

let pki: TestPki
let rogue: TestPki
let server: TestServer
let rogueServer: TestServer
let plain: TestServer
let v6Server: TestServer | undefined
const hasIpv6 = await canListenOn('::1')

const dns = createFakeDns({
  'good.test': ['127.0.0.1'],
  'other.test': ['127.0.0.1'],
  'nomatch.test': ['127.0.0.1'],
  'v6.test': ['::1'],
})

function policy(overrides: Partial<OutboundPolicy> = {}): OutboundPolicy {
  return {
    allowCidrs: ['127.0.0.1/32'],
    trustedCaCertificates: [pki.caPem],
    lookup: dns.lookup,
    totalTimeoutMs: 5000,
    ...overrides,
  }
}

beforeAll(async () => {
  pki = createTestPki(NAMES)
  rogue = createTestPki(NAMES, 'Untrusted CA')
  server = await startHttpsTestServer(pki)
  rogueServer = await startHttpsTestServer(rogue)
  plain = await startHttpTestServer()
  if (hasIpv6) v6Server = await startHttpsTestServer(pki, '::1')
})

afterAll(async () => {
  await Promise.all([server.close(), rogueServer.close(), plain.close(), v6Server?.close()])
})

describe('outbound client: allowlisted loopback over TLS', () => {
  it('reaches an allowlisted loopback host, verifying the certificate for the hostname (SNI and Host)', async () => {
    const client = createOutboundClient(policy())
    const before = server.connections.length
    const res = await client.request(`https://good.test:${server.port}/echo`, { headers: { 'X-Trace': 't1' } })
    expect(res.status).toBe(200)
    expect(res.url).toBe(`https://good.test:${server.port}/echo`)
    const echoed = JSON.parse(Buffer.from(res.body).toString('utf8'))
    expect(echoed.headers).toMatchObject({
      host: `good.test:${server.port}`,
      'x-trace': 't1',
      'user-agent': 'acdp-outbound',
    })
    expect(echoed.headers.cookie).toBeUndefined()
    expect(server.connections.slice(before)).toEqual([{ localAddress: '127.0.0.1', servername: 'good.test' }])
    await client.close()
  })

  it('refuses the same loopback host when the allowlist is empty', async () => {
    const client = createOutboundClient(policy({ allowCidrs: [] }))
    await expectOutboundError(client.request(`https://good.test:${server.port}/ok`), 'outbound_refused', {
      reason: 'loopback',
    })
    await client.close()
  })

  it('refuses a loopback address outside a narrower allowlist', async () => {
    const client = createOutboundClient(policy({ allowCidrs: ['127.0.0.2/32'] }))
    await expectOutboundError(client.request(`https://good.test:${server.port}/ok`), 'outbound_refused', {
      reason: 'loopback',
    })
    await client.close()
  })

  it('reaches an allowlisted IP literal URL, verifying the IP SAN', async () => {
    const client = createOutboundClient(policy())
    const res = await client.request(`https://127.0.0.1:${server.port}/ok`)
    expect(res.status).toBe(200)
    expect(Buffer.from(res.body).toString()).toBe('ok')
    await client.close()
  })

  it.skipIf(!hasIpv6)('reaches an allowlisted ::1 by name and by literal', async () => {
    const client = createOutboundClient(policy({ allowCidrs: ['::1/128'] }))
    const port = v6Server!.port
    expect((await client.request(`https://v6.test:${port}/ok`)).status).toBe(200)
    expect((await client.request(`https://[::1]:${port}/ok`)).status).toBe(200)
    expect(v6Server!.connections.map((c) => c.localAddress)).toContain('::1')
    await client.close()
  })

  it('falls back to the next checked address when the first refuses the connection', async () => {
    // 127.0.0.3 has no listener on the server's port (the server is bound to 127.0.0.1 only).
    const fallbackDns = createFakeDns({ 'two.test': ['127.0.0.3', '127.0.0.1'] })
    const client = createOutboundClient(policy({ allowCidrs: ['127.0.0.0/8'], lookup: fallbackDns.lookup }))
    const before = server.connections.length
    const res = await client.request(`https://two.test:${server.port}/ok`)
    expect(res.status).toBe(200)
    expect(server.connections.length - before).toBe(1)
    expect(fallbackDns.calls).toEqual(['two.test'])
    await client.close()
  })
})

describe('outbound client: keep-alive pools', () => {
  /** Requests good.test, other.test, good.test in turn and returns how many TLS connections the server accepted. */
  async function connectionsForAlternatingOrigins(maxPools: number): Promise<number> {
    const client = createOutboundClient(policy({ maxPools }))
    const before = server.connections.length
    for (const host of ['good.test', 'other.test', 'good.test']) {
      const res = await client.request(`https://${host}:${server.port}/echo`)
      expect(res.status).toBe(200)
    }
    await client.close()
    return server.connections.length - before
  }

  it('sends a request made right after another to the same origin over the same connection', async () => {
    const client = createOutboundClient(policy())
    const before = server.connections.length
    for (let i = 0; i < 3; i++) expect((await client.request(`https://good.test:${server.port}/echo`)).status).toBe(200)
    expect(server.connections.length - before).toBe(1)
    await client.close()
  })

  it('keeps an idle connection per origin while the origins fit in maxPools', async () => {
    expect(await connectionsForAlternatingOrigins(2)).toBe(2)
  })

  it('closes the least recently used origin beyond maxPools, so returning to it connects again', async () => {
    expect(await connectionsForAlternatingOrigins(1)).toBe(3)
  })

  it('refuses a maxPools that is not a positive integer', () => {
    expect(() => createOutboundClient(policy({ maxPools: 0 }))).toThrow(TypeError)
    expect(() => createOutboundClient(policy({ maxPools: 1.5 }))).toThrow(TypeError)
  })
})

describe('outbound client: responses are returned whatever their status', () => {
  it.each([200, 201, 204, 400, 404, 429, 500, 503])('returns status %s with its body', async (status) => {
    const client = createOutboundClient(policy())
    const res = await client.request(`https://good.test:${server.port}/status/${status}`)
    expect(res.status).toBe(status)
    expect(Buffer.from(res.body).toString()).toBe(status === 204 ? '' : `status ${status}`)
    await client.close()
  })

  it('returns a 3xx without Location unchanged', async () => {
    const client = createOutboundClient(policy())
    const res = await client.request(`https://good.test:${server.port}/no-location`)
    expect(res.status).toBe(302)
    expect(Buffer.from(res.body).toString()).toBe('no location')
    await client.close()
  })

  it('sends POST and PUT bodies and returns an empty body for HEAD', async () => {
    const client = createOutboundClient(policy())
    const post = await client.request(`https://good.test:${server.port}/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"a":1}',
    })
    expect(JSON.parse(Buffer.from(post.body).toString())).toMatchObject({ method: 'POST', body: '{"a":1}' })
    const put = await client.request(`https://good.test:${server.port}/echo`, {
      method: 'PUT',
      body: new TextEncoder().encode('bytes'),
    })
    expect(JSON.parse(Buffer.from(put.body).toString())).toMatchObject({ method: 'PUT', body: 'bytes' })
    const head = await client.request(`https://good.test:${server.port}/bytes/10`, { method: 'HEAD' })
    expect(head.status).toBe(200)
    expect(head.body.byteLength).toBe(0)
    await client.close()
  })
})

describe('outbound client: plain http only for allowlisted dev addresses', () => {
  it('refuses http to an allowlisted address unless allowHttpForAllowlisted is set', async () => {
    const client = createOutboundClient(policy())
    await expectOutboundError(client.request(`http://good.test:${plain.port}/ok`), 'outbound_refused', {
      reason: 'scheme',
    })
    expect(plain.connections).toEqual([])
    await client.close()
  })

  it('reaches an allowlisted address over http when allowHttpForAllowlisted is set', async () => {
    const client = createOutboundClient(policy({ allowHttpForAllowlisted: true }))
    const res = await client.request(`http://good.test:${plain.port}/ok`)
    expect(res.status).toBe(200)
    expect(plain.connections.map((c) => c.localAddress)).toEqual(['127.0.0.1'])
    await client.close()
  })
})

describe('outbound client: transport failures', () => {
  it('fails with tls when the server certificate comes from an untrusted CA', async () => {
    const client = createOutboundClient(policy())
    await expectOutboundError(client.request(`https://good.test:${rogueServer.port}/ok`), 'outbound_failed', {
      reason: 'tls',
    })
    await client.close()
  })

  it('fails with tls when the certificate does not name the requested host', async () => {
    const client = createOutboundClient(policy())
    await expectOutboundError(client.request(`https://nomatch.test:${server.port}/ok`), 'outbound_failed', {
      reason: 'tls',
      code: 'ERR_TLS_CERT_ALTNAME_INVALID',
    })
    await client.close()
  })

  it('fails with tls against the system roots only (test CA not trusted)', async () => {
    const client = createOutboundClient(policy({ trustedCaCertificates: undefined }))
    await expectOutboundError(client.request(`https://good.test:${server.port}/ok`), 'outbound_failed', {
      reason: 'tls',
    })
    await client.close()
  })

  it('fails with connect when nothing listens', async () => {
    const port = await findClosedPort()
    const client = createOutboundClient(policy())
    await expectOutboundError(client.request(`https://good.test:${port}/ok`), 'outbound_failed', {
      reason: 'connect',
      code: 'ECONNREFUSED',
    })
    await client.close()
  })

  it('fails with aborted when the caller aborts', async () => {
    const client = createOutboundClient(policy())
    const controller = new AbortController()
    const pending = client.request(`https://good.test:${server.port}/hang`, { signal: controller.signal })
    setTimeout(() => controller.abort(), 50)
    await expectOutboundError(pending, 'outbound_failed', { reason: 'aborted' })
    const aborted = AbortSignal.abort()
    await expectOutboundError(
      client.request(`https://good.test:${server.port}/ok`, { signal: aborted }),
      'outbound_failed',
      {
        reason: 'aborted',
      },
    )
    await client.close()
  })

  it('fails with client_closed after close()', async () => {
    const client = createOutboundClient(policy())
    await client.request(`https://good.test:${server.port}/ok`)
    await client.close()
    await expectOutboundError(client.request(`https://good.test:${server.port}/ok`), 'outbound_failed', {
      reason: 'client_closed',
    })
  })
})
