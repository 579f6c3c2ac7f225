/**
 * Connect and total deadlines (RFC-ACDP-0006 §7.4). Loopback only: the connect deadline covers the TLS handshake,
 * so a TCP listener that never speaks TLS exercises it; a TLS server that never answers, or answers forever,
 * exercises the total deadline. Assertions are on error codes, never on elapsed time.
 */
import { afterAll, beforeAll, describe, it } from 'vitest'
import { createOutboundClient, type OutboundPolicy } from '../src/outbound/index.js'
import { createFakeDns } from './support/fake-dns.js'
import { expectOutboundError } from './support/outbound-errors.js'
import { createTestPki, type TestPki } from './support/test-ca.js'
import { startHttpsTestServer, startSilentTcpServer, type TestServer } from './support/test-servers.js'

let pki: TestPki
let server: TestServer
let silent: Awaited<ReturnType<typeof startSilentTcpServer>>
const dns = createFakeDns({ 'good.test': ['127.0.0.1'] })

function policy(overrides: Partial<OutboundPolicy> = {}): OutboundPolicy {
  return { allowCidrs: ['127.0.0.1/32'], trustedCaCertificates: [pki.caPem], lookup: dns.lookup, ...overrides }
}

beforeAll(async () => {
  pki = createTestPki({ dnsNames: ['good.test'], ipAddresses: ['127.0.0.1'] })
  server = await startHttpsTestServer(pki)
  silent = await startSilentTcpServer()
})

afterAll(async () => {
  await Promise.all([server.close(), silent.close()])
})

describe('outbound client: deadlines', () => {
  it('fails with connect_timeout when the TLS handshake never completes', async () => {
    const client = createOutboundClient(policy({ connectTimeoutMs: 150, totalTimeoutMs: 5000 }))
    await expectOutboundError(client.request(`https://good.test:${silent.port}/`), 'outbound_failed', {
      reason: 'connect_timeout',
    })
    await client.close()
  })

  it('fails with total_timeout when the total deadline ends during the handshake', async () => {
    const client = createOutboundClient(policy({ connectTimeoutMs: 5000, totalTimeoutMs: 150 }))
    await expectOutboundError(client.request(`https://good.test:${silent.port}/`), 'outbound_failed', {
      reason: 'total_timeout',
    })
    await client.close()
  })

  it('fails with total_timeout when the server never sends a response', async () => {
    const client = createOutboundClient(policy({ totalTimeoutMs: 200 }))
    await expectOutboundError(client.request(`https://good.test:${server.port}/hang`), 'outbound_failed', {
      reason: 'total_timeout',
    })
    await client.close()
  })

  it('fails with total_timeout when the body trickles past the deadline', async () => {
    const client = createOutboundClient(policy({ totalTimeoutMs: 300 }))
    await expectOutboundError(client.request(`https://good.test:${server.port}/drip`), 'outbound_failed', {
      reason: 'total_timeout',
    })
    await client.close()
  })

  it('applies a per-request total deadline over the policy one', async () => {
    const client = createOutboundClient(policy({ totalTimeoutMs: 10_000 }))
    await expectOutboundError(
      client.request(`https://good.test:${server.port}/hang`, { totalTimeoutMs: 150 }),
      'outbound_failed',
      { reason: 'total_timeout' },
    )
    await client.close()
  })

  it('bounds a DNS lookup that never answers by the total deadline', async () => {
    const hangingLookup = () => new Promise<Array<{ address: string; family: 4 | 6 }>>(() => undefined)
    const client = createOutboundClient(policy({ lookup: hangingLookup, totalTimeoutMs: 150 }))
    await expectOutboundError(client.request('https://never.test/'), 'outbound_failed', { reason: 'total_timeout' })
    await expectOutboundError(client.checkUrl('https://never.test/'), 'outbound_failed', { reason: 'total_timeout' })
    await client.close()
  })
})
