/**
 * Response body cap (RFC-ACDP-0006 §7.3): cap−1, cap and cap+1 bytes, with and without Content-Length, and a
 * large stream aborted early instead of being buffered.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createOutboundClient, type OutboundClient } from '../src/outbound/index.js'
import { createFakeDns } from './support/fake-dns.js'
import { expectOutboundError } from './support/outbound-errors.js'
import { createTestPki } from './support/test-ca.js'
import { startHttpsTestServer, type TestServer } from './support/test-servers.js'

const CAP = 4096
let server: TestServer
let client: OutboundClient

beforeAll(async () => {
  const pki = createTestPki({ dnsNames: ['good.test'], ipAddresses: ['127.0.0.1'] })
  server = await startHttpsTestServer(pki)
  client = createOutboundClient({
    allowCidrs: ['127.0.0.1/32'],
    trustedCaCertificates: [pki.caPem],
    lookup: createFakeDns({ 'good.test': ['127.0.0.1'] }).lookup,
    maxBodyBytes: CAP,
    totalTimeoutMs: 10_000,
  })
})

afterAll(async () => {
  await client.close()
  await server.close()
})

describe('outbound client: body cap', () => {
  it.each([
    ['cap − 1 with Content-Length', 'bytes', CAP - 1],
    ['exactly the cap with Content-Length', 'bytes', CAP],
    ['cap − 1 chunked', 'chunked', CAP - 1],
    ['exactly the cap chunked', 'chunked', CAP],
    ['empty body', 'bytes', 0],
  ])('accepts %s', async (_name, route, size) => {
    const res = await client.request(`https://good.test:${server.port}/${route}/${size}`)
    expect(res.status).toBe(200)
    expect(res.body.byteLength).toBe(size)
  })

  it('refuses cap + 1 announced by Content-Length before reading it', async () => {
    await expectOutboundError(
      client.request(`https://good.test:${server.port}/bytes/${CAP + 1}`),
      'outbound_too_large',
      {
        reason: 'content_length',
        limit_bytes: CAP,
      },
    )
  })

  it('refuses cap + 1 streamed without Content-Length', async () => {
    await expectOutboundError(
      client.request(`https://good.test:${server.port}/chunked/${CAP + 1}`),
      'outbound_too_large',
      {
        reason: 'body',
        limit_bytes: CAP,
      },
    )
  })

  it('applies a per-request cap over the policy cap', async () => {
    const ok = await client.request(`https://good.test:${server.port}/bytes/100`, { maxBodyBytes: 100 })
    expect(ok.body.byteLength).toBe(100)
    await expectOutboundError(
      client.request(`https://good.test:${server.port}/chunked/101`, { maxBodyBytes: 100 }),
      'outbound_too_large',
      { limit_bytes: 100 },
    )
  })

  it('aborts a 64 MiB stream early instead of buffering it', async () => {
    const total = 64 * 1024 * 1024
    await expectOutboundError(
      client.request(`https://good.test:${server.port}/stream/${total}`),
      'outbound_too_large',
      {
        reason: 'body',
      },
    )
    await expect.poll(() => server.streamed.closedEarly, { timeout: 5000 }).toBe(true)
    expect(server.streamed.bytes).toBeLessThan(total)
  })
})
