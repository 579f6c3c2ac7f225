/**
 * verifyDataRefs fetching `data_refs[].location` through the SSRF-safe outbound client (RFC-ACDP-0008 §4.9):
 * matching and wrong hashes, a same-authority redirect and an oversized body against loopback servers (allowlisted
 * here through the client's own policy), then every refused destination with the allowlist off. A refused fetch
 * never reaches a socket: the servers' connection logs stay empty.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { sha256String } from '../src/hash/sha256.js'
import { createOutboundClient, type OutboundClient } from '../src/outbound/index.js'
import { verifyDataRefs } from '../src/sdk/verify-data-refs.js'
import { startHttpTestServer, type TestServer } from './support/test-servers.js'

/** What `/bytes/<n>` of the test server serves: n bytes of `a`. */
const hashOfBytes = (n: number) => sha256String(new Uint8Array(n).fill(0x61))
const ref = (location: string, contentHash = hashOfBytes(5)) => ({
  type: 'raw_data',
  location,
  content_hash: contentHash,
})

let server: TestServer
let other: TestServer
const clients: OutboundClient[] = []
const client = (policy: Parameters<typeof createOutboundClient>[0]) => {
  const created = createOutboundClient(policy)
  clients.push(created)
  return created
}
const allowlisted = () => client({ allowCidrs: ['127.0.0.1/32'], allowHttpForAllowlisted: true })

beforeAll(async () => {
  server = await startHttpTestServer()
  other = await startHttpTestServer()
})
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.close()))
})
afterAll(async () => {
  await server.close()
  await other.close()
})

describe('verifyDataRefs over loopback (allowlisted)', () => {
  it('verifies a matching hash and fails a wrong one as data_ref_hash_mismatch', async () => {
    const base = `http://127.0.0.1:${server.port}`
    const stages = await verifyDataRefs(
      { data_refs: [ref(`${base}/bytes/5`), ref(`${base}/bytes/6`)] },
      { client: allowlisted() },
    )
    expect(stages).toEqual([
      {
        name: 'data_ref[0]',
        state: 'verified',
        reason: `5 bytes from ${base}/bytes/5 hash to the declared ${hashOfBytes(5)}`,
      },
      {
        name: 'data_ref[1]',
        state: 'failed',
        reason: `data_ref_hash_mismatch: 6 bytes from ${base}/bytes/6 hash to ${hashOfBytes(6)}, the producer declared ${hashOfBytes(5)}`,
      },
    ])
  })

  it('follows a same-authority redirect and verifies the bytes it lands on', async () => {
    const base = `http://127.0.0.1:${server.port}`
    const [stage] = await verifyDataRefs(
      { data_refs: [ref(`${base}/redirect?to=/bytes/5`)] },
      { client: allowlisted() },
    )
    expect(stage).toMatchObject({ state: 'verified', reason: expect.stringContaining(`from ${base}/bytes/5`) })
  })

  it('fails an oversized body at the cap and a non-200 answer', async () => {
    const base = `http://127.0.0.1:${server.port}`
    const stages = await verifyDataRefs(
      { data_refs: [ref(`${base}/bytes/4096`, hashOfBytes(4096)), ref(`${base}/status/404`)] },
      { client: allowlisted(), maxBodyBytes: 1024 },
    )
    expect(stages[0]).toMatchObject({ state: 'failed', reason: expect.stringContaining('outbound_too_large') })
    expect(stages[1]).toMatchObject({ state: 'failed', reason: expect.stringContaining('answered 404') })
  })

  it.each([
    ['another port of the same host', () => `http://127.0.0.1:${other.port}/bytes/5`],
    ['another host name', () => `http://localhost:${other.port}/bytes/5`],
  ])('refuses a redirect to %s before connecting to it', async (_case, target) => {
    const before = other.connections.length
    const [stage] = await verifyDataRefs(
      { data_refs: [ref(`http://127.0.0.1:${server.port}/redirect?to=${encodeURIComponent(target())}`)] },
      { client: allowlisted() },
    )
    expect(stage).toMatchObject({
      state: 'failed',
      reason: expect.stringContaining('outbound_refused/redirect_cross_origin'),
    })
    expect(other.connections.length).toBe(before)
  })
})

describe('verifyDataRefs refuses hostile locations (no allowlist)', () => {
  it.each([
    ['a private address', () => 'https://10.0.0.1/data.csv', 'private'],
    ['loopback', () => `https://127.0.0.1:${server.port}/bytes/5`, 'loopback'],
    ['the link-local metadata address', () => 'https://169.254.169.254/latest/meta-data', 'cloud_metadata'],
    ['a DNS name resolving to loopback', () => `https://rebind.example:${server.port}/bytes/5`, 'loopback'],
    ['plain http', () => `http://127.0.0.1:${server.port}/bytes/5`, 'scheme'],
  ])('refuses %s before any connection and says why', async (_case, location, reason) => {
    const before = server.connections.length
    const strict = client({
      allowCidrs: [],
      // A rebinding-style answer: the name points at loopback; the client must refuse the answer itself.
      lookup: async () => [{ address: '127.0.0.1', family: 4 }],
    })
    const [stage] = await verifyDataRefs({ data_refs: [ref(location())] }, { client: strict })
    expect(stage).toMatchObject({ name: 'data_ref[0]', state: 'failed' })
    expect(stage?.reason).toContain(`not fetched: outbound_refused/${reason}`)
    expect(server.connections.length).toBe(before)
  })
})
