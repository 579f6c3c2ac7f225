/**
 * DNS pinning (RFC-ACDP-0006 §7.6): one resolution per request, used both for the check and for the socket.
 * Two servers share a port on 127.0.0.1 (A) and 127.0.0.2 (B); the fake DNS answers A first and B on every later
 * lookup. Both are allowlisted, so only pinning, not policy, keeps the request on A: any second lookup at
 * connect time or on a redirect hop would land on B.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createOutboundClient } from '../src/outbound/index.js'
import { createFakeDns } from './support/fake-dns.js'
import { expectOutboundError } from './support/outbound-errors.js'
import { createTestPki, type TestPki } from './support/test-ca.js'
import { canListenOn, startHttpsTestServer, type TestServer } from './support/test-servers.js'

const hasSecondLoopback = await canListenOn('127.0.0.2')
let pki: TestPki
let first: TestServer
let second: TestServer

beforeAll(async () => {
  if (!hasSecondLoopback) return
  pki = createTestPki({ dnsNames: ['rebind.test'], ipAddresses: ['127.0.0.1', '127.0.0.2'] })
  first = await startHttpsTestServer(pki, '127.0.0.1')
  second = await startHttpsTestServer(pki, '127.0.0.2', first.port)
})

afterAll(async () => {
  await Promise.all([first?.close(), second?.close()])
})

function rebindingClient(allowCidrs: string[]) {
  const dns = createFakeDns({ 'rebind.test': (call) => (call === 0 ? ['127.0.0.1'] : ['127.0.0.2']) })
  const client = createOutboundClient({
    allowCidrs,
    trustedCaCertificates: [pki.caPem],
    lookup: dns.lookup,
    totalTimeoutMs: 5000,
  })
  return { client, dns }
}

describe.skipIf(!hasSecondLoopback)('outbound client: DNS rebinding', () => {
  it('connects once, to the checked address, for a single request', async () => {
    const { client, dns } = rebindingClient(['127.0.0.1/32', '127.0.0.2/32'])
    const a = first.connections.length
    const b = second.connections.length
    const res = await client.request(`https://rebind.test:${first.port}/ok`)
    expect(res.status).toBe(200)
    expect(dns.calls).toEqual(['rebind.test'])
    expect(first.connections.slice(a)).toEqual([{ localAddress: '127.0.0.1', servername: 'rebind.test' }])
    expect(second.connections.length).toBe(b)
    await client.close()
  })

  it('keeps every redirect hop on the checked address without a new lookup', async () => {
    const { client, dns } = rebindingClient(['127.0.0.1/32', '127.0.0.2/32'])
    const a = first.requests.length
    const b = second.connections.length
    const res = await client.request(`https://rebind.test:${first.port}/chain/3`)
    expect(res.status).toBe(200)
    expect(dns.calls).toEqual(['rebind.test'])
    expect(first.requests.slice(a).map((r) => r.url)).toEqual(['/chain/3', '/chain/2', '/chain/1', '/chain/0'])
    expect(second.connections.length).toBe(b)
    await client.close()
  })

  it('resolves afresh for the next request (the fake DNS really rebinds)', async () => {
    const { client, dns } = rebindingClient(['127.0.0.1/32', '127.0.0.2/32'])
    const b = second.connections.length
    await client.request(`https://rebind.test:${first.port}/ok`)
    await client.request(`https://rebind.test:${first.port}/ok`)
    expect(dns.calls).toEqual(['rebind.test', 'rebind.test'])
    expect(second.connections.slice(b).map((c) => c.localAddress)).toEqual(['127.0.0.2'])
    await client.close()
  })

  it('refuses the next request when the rebound address is outside the allowlist', async () => {
    const { client } = rebindingClient(['127.0.0.1/32'])
    const b = second.connections.length
    expect((await client.request(`https://rebind.test:${first.port}/ok`)).status).toBe(200)
    await expectOutboundError(client.request(`https://rebind.test:${first.port}/ok`), 'outbound_refused', {
      reason: 'loopback',
      address: '127.0.0.2',
    })
    expect(second.connections.length).toBe(b)
    await client.close()
  })
})
