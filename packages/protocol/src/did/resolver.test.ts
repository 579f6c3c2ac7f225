import { describe, expect, it } from 'vitest'
import { isProtocolError, ProtocolError } from '../errors.js'
import { ed25519PublicKeyFromSeed } from '../signature/ed25519.js'
import { didKeyKeyId, encodeDidKey } from './did-key.js'
import { DidResolver, MAX_DID_CACHE_TTL_MS, MAX_DID_DOCUMENT_BYTES, MIN_DID_CACHE_TTL_MS } from './resolver.js'

const DID = 'did:web:agents.example.com:producer'
const KEY_ID = `${DID}#key-1`
const MINUTE = 60_000
const keyA = ed25519PublicKeyFromSeed(new Uint8Array(32).fill(10))
const keyB = ed25519PublicKeyFromSeed(new Uint8Array(32).fill(11))

function documentFor(publicKey: Uint8Array, fragment = 'key-1', id = DID): Uint8Array {
  const keyId = `${id}#${fragment}`
  const doc = {
    id,
    verificationMethod: [
      {
        id: keyId,
        type: 'JsonWebKey2020',
        controller: id,
        publicKeyJwk: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(publicKey).toString('base64url') },
      },
    ],
    assertionMethod: [keyId],
  }
  return new TextEncoder().encode(JSON.stringify(doc))
}

type Reply = { status: number; body: Uint8Array } | Error | (() => Promise<{ status: number; body: Uint8Array }>)

/** A scripted DID host: each fetch takes the next reply (the last one repeats). */
function fakeHost(...replies: Reply[]) {
  const urls: string[] = []
  const fetchDidDocument = async (url: URL) => {
    urls.push(url.href)
    const reply = replies.length > 1 ? replies.shift()! : replies[0]!
    if (reply instanceof Error) throw reply
    if (typeof reply === 'function') return reply()
    return reply
  }
  return { urls, fetchDidDocument }
}

function fakeClock(start = 1_000_000) {
  let now = start
  return {
    clock: () => now,
    advance: (ms: number) => {
      now += ms
    },
  }
}

async function failure(promise: Promise<unknown>): Promise<string> {
  try {
    await promise
    return 'resolved'
  } catch (error) {
    if (isProtocolError(error)) return `${error.code}:${error.details?.['reason']}`
    throw error
  }
}

const ok = (body: Uint8Array) => ({ status: 200, body })

describe('DidResolver: did:key', () => {
  const did = encodeDidKey({ algorithm: 'ed25519', publicKey: keyA })

  it('resolves locally without fetching', async () => {
    const host = fakeHost(new Error('must not fetch'))
    const resolver = new DidResolver({ fetchDidDocument: host.fetchDidDocument })
    const key = await resolver.resolveKey(didKeyKeyId(did))
    expect(key).toMatchObject({ algorithm: 'ed25519', did, keyId: didKeyKeyId(did) })
    expect(Buffer.from(key.publicKey).equals(Buffer.from(keyA))).toBe(true)
    expect(host.urls).toEqual([])
  })

  it.each([
    ['a fragment that is not the key identifier', `${did}#key-1`, 'key_resolution_failed:fragment_mismatch'],
    ['a missing fragment', did, 'key_resolution_failed:missing_fragment'],
    [
      'a bad multicodec',
      'did:key:z6LSbysY2xFMRpGMhb7tFTLMpeuPRaqaWM1yECx2AtzE3KCc#z6LSbysY2xFMRpGMhb7tFTLMpeuPRaqaWM1yECx2AtzE3KCc',
      'key_resolution_failed:unsupported_multicodec',
    ],
  ])('refuses %s', async (_name, keyId, expected) => {
    const resolver = new DidResolver({ fetchDidDocument: fakeHost(new Error('no')).fetchDidDocument })
    expect(await failure(resolver.resolveKey(keyId))).toBe(expected)
  })

  it('refuses did:key when the registry does not accept it (dk-003)', async () => {
    const resolver = new DidResolver({
      fetchDidDocument: fakeHost(new Error('no')).fetchDidDocument,
      allowedMethods: ['web'],
    })
    expect(await failure(resolver.resolveKey(didKeyKeyId(did)))).toBe('key_resolution_failed:unsupported_did_method')
  })

  it('refuses other DID methods', async () => {
    const resolver = new DidResolver({ fetchDidDocument: fakeHost(new Error('no')).fetchDidDocument })
    expect(await failure(resolver.resolveKey('did:jwk:abc#0'))).toBe('key_resolution_failed:unsupported_did_method')
  })

  it('keeps each decoded did:key once and hands out copies a caller cannot corrupt', async () => {
    const resolver = new DidResolver({ fetchDidDocument: fakeHost(new Error('no')).fetchDidDocument })
    const first = await resolver.resolveKey(didKeyKeyId(did))
    first.publicKey.fill(0xff)
    const second = await resolver.resolveKey(didKeyKeyId(did))
    expect(Buffer.from(second.publicKey).equals(Buffer.from(keyA))).toBe(true)
    expect(resolver.cachedDidKeyCount).toBe(1)
  })

  it('keeps no failures and a valid key survives a wrong-fragment request for it', async () => {
    const resolver = new DidResolver({ fetchDidDocument: fakeHost(new Error('no')).fetchDidDocument })
    await resolver.resolveKey(didKeyKeyId(did))
    expect(await failure(resolver.resolveKey(`${did}#key-1`))).toBe('key_resolution_failed:fragment_mismatch')
    expect(await failure(resolver.resolveKey('did:key:z6LSbysY2xFMRpGMhb7tFTLMpeuPRaqaWM1yECx2AtzE3KCc#x'))).toBe(
      'key_resolution_failed:unsupported_multicodec',
    )
    expect(resolver.cachedDidKeyCount).toBe(1)
    expect((await resolver.resolveKey(didKeyKeyId(did))).did).toBe(did)
  })

  it('evicts the least recently used did:key beyond maxEntries', async () => {
    const resolver = new DidResolver({ fetchDidDocument: fakeHost(new Error('no')).fetchDidDocument, maxEntries: 2 })
    const dids = [10, 11, 12].map((n) =>
      encodeDidKey({ algorithm: 'ed25519', publicKey: ed25519PublicKeyFromSeed(new Uint8Array(32).fill(n)) }),
    )
    for (const d of dids) await resolver.resolveKey(didKeyKeyId(d))
    expect(resolver.cachedDidKeyCount).toBe(2)
  })
})

describe('DidResolver: did:web', () => {
  it('fetches the document from the did:web URL and returns the key', async () => {
    const host = fakeHost(ok(documentFor(keyA)))
    const resolver = new DidResolver({ fetchDidDocument: host.fetchDidDocument })
    const key = await resolver.resolveKey(KEY_ID)
    expect(key).toMatchObject({ algorithm: 'ed25519', did: DID, keyId: KEY_ID })
    expect(Buffer.from(key.publicKey).equals(Buffer.from(keyA))).toBe(true)
    expect(host.urls).toEqual(['https://agents.example.com/producer/did.json'])
  })

  it('serves from cache within the TTL and refetches after it', async () => {
    const time = fakeClock()
    const host = fakeHost(ok(documentFor(keyA)), ok(documentFor(keyB)))
    const resolver = new DidResolver({
      fetchDidDocument: host.fetchDidDocument,
      clock: time.clock,
      cacheTtlMs: 10 * MINUTE,
    })
    await resolver.resolveKey(KEY_ID)
    time.advance(10 * MINUTE - 1)
    expect(Buffer.from((await resolver.resolveKey(KEY_ID)).publicKey).equals(Buffer.from(keyA))).toBe(true)
    expect(host.urls).toHaveLength(1)
    time.advance(1)
    expect(Buffer.from((await resolver.resolveKey(KEY_ID)).publicKey).equals(Buffer.from(keyB))).toBe(true)
    expect(host.urls).toHaveLength(2)
  })

  it.each([
    [1, MIN_DID_CACHE_TTL_MS],
    [MIN_DID_CACHE_TTL_MS, MIN_DID_CACHE_TTL_MS],
    [2 * 60 * MINUTE, 2 * 60 * MINUTE],
    [MAX_DID_CACHE_TTL_MS + 1, MAX_DID_CACHE_TTL_MS],
    [undefined, 60 * MINUTE],
  ])('clamps cacheTtlMs %s to %s', (ttl, effective) => {
    const resolver = new DidResolver({
      fetchDidDocument: fakeHost(new Error('no')).fetchDidDocument,
      ...(ttl === undefined ? {} : { cacheTtlMs: ttl }),
    })
    expect(resolver.cacheTtlMs).toBe(effective)
  })

  it('coalesces concurrent resolutions of one DID into one fetch', async () => {
    let release: () => void = () => {}
    const gate = new Promise<void>((resolve) => {
      release = resolve
    })
    const host = fakeHost(async () => {
      await gate
      return ok(documentFor(keyA))
    })
    const resolver = new DidResolver({ fetchDidDocument: host.fetchDidDocument })
    const pending = Array.from({ length: 5 }, () => resolver.resolveKey(KEY_ID))
    pending.push(resolver.resolveKey(KEY_ID, { forceRefresh: true }))
    release()
    const keys = await Promise.all(pending)
    expect(keys.every((k) => Buffer.from(k.publicKey).equals(Buffer.from(keyA)))).toBe(true)
    expect(host.urls).toHaveLength(1)
  })

  it('rate-limits forced refetches per DID', async () => {
    const time = fakeClock()
    const host = fakeHost(ok(documentFor(keyA)), ok(documentFor(keyB)))
    const resolver = new DidResolver({
      fetchDidDocument: host.fetchDidDocument,
      clock: time.clock,
      minRefetchIntervalMs: MINUTE,
    })
    await resolver.resolveKey(KEY_ID)
    time.advance(MINUTE - 1)
    expect(
      Buffer.from((await resolver.resolveKey(KEY_ID, { forceRefresh: true })).publicKey).equals(Buffer.from(keyA)),
    ).toBe(true)
    expect(host.urls).toHaveLength(1)
    time.advance(1)
    expect(
      Buffer.from((await resolver.resolveKey(KEY_ID, { forceRefresh: true })).publicKey).equals(Buffer.from(keyB)),
    ).toBe(true)
    expect(host.urls).toHaveLength(2)
  })

  it('answers a forced lookup of a key absent from a cached document transiently while the refetch is rate limited', async () => {
    const time = fakeClock()
    const host = fakeHost(ok(documentFor(keyA)), ok(documentFor(keyB, 'key-2')))
    const resolver = new DidResolver({
      fetchDidDocument: host.fetchDidDocument,
      clock: time.clock,
      minRefetchIntervalMs: MINUTE,
    })
    const rotated = `${KEY_ID.slice(0, KEY_ID.indexOf('#'))}#key-2`
    expect(await failure(resolver.resolveKey(rotated))).toMatch(/^key_resolution_failed:/)
    expect(await failure(resolver.resolveKey(rotated, { forceRefresh: true }))).toBe(
      'key_resolution_unreachable:refetch_rate_limited',
    )
    expect(host.urls).toHaveLength(1)
    time.advance(MINUTE)
    expect(Buffer.from((await resolver.resolveKey(rotated, { forceRefresh: true })).publicKey)).toEqual(
      Buffer.from(keyB),
    )
  })

  it('keeps the good cached key when a forced refetch fails', async () => {
    const time = fakeClock()
    const host = fakeHost(ok(documentFor(keyA)), { status: 503, body: new Uint8Array() })
    const resolver = new DidResolver({ fetchDidDocument: host.fetchDidDocument, clock: time.clock })
    await resolver.resolveKey(KEY_ID)
    time.advance(2 * MINUTE)
    expect(await failure(resolver.resolveKey(KEY_ID, { forceRefresh: true }))).toBe(
      'key_resolution_unreachable:http_status',
    )
    const key = await resolver.resolveKey(KEY_ID)
    expect(Buffer.from(key.publicKey).equals(Buffer.from(keyA))).toBe(true)
    expect(host.urls).toHaveLength(2)
    // Within the rate-limit window a second forced refresh does not hit the host again.
    expect(
      Buffer.from((await resolver.resolveKey(KEY_ID, { forceRefresh: true })).publicKey).equals(Buffer.from(keyA)),
    ).toBe(true)
    expect(host.urls).toHaveLength(2)
  })

  it('replaces the document after a successful forced refetch, even when the key is gone', async () => {
    const time = fakeClock()
    const host = fakeHost(ok(documentFor(keyA)), ok(documentFor(keyB, 'key-2')))
    const resolver = new DidResolver({ fetchDidDocument: host.fetchDidDocument, clock: time.clock })
    await resolver.resolveKey(KEY_ID)
    time.advance(2 * MINUTE)
    expect(await failure(resolver.resolveKey(KEY_ID, { forceRefresh: true }))).toBe(
      'key_resolution_failed:verification_method_not_found',
    )
    expect((await resolver.resolveKey(`${DID}#key-2`)).keyId).toBe(`${DID}#key-2`)
  })

  it('remembers a failure briefly instead of refetching, then retries', async () => {
    const time = fakeClock()
    const host = fakeHost(new Error('ECONNRESET'), ok(documentFor(keyA)))
    const resolver = new DidResolver({
      fetchDidDocument: host.fetchDidDocument,
      clock: time.clock,
      failureCacheMs: 5_000,
    })
    expect(await failure(resolver.resolveKey(KEY_ID))).toBe('key_resolution_unreachable:transport_error')
    time.advance(4_999)
    expect(await failure(resolver.resolveKey(KEY_ID))).toBe('key_resolution_unreachable:transport_error')
    expect(host.urls).toHaveLength(1)
    time.advance(1)
    expect((await resolver.resolveKey(KEY_ID)).did).toBe(DID)
    expect(host.urls).toHaveLength(2)
  })

  it('caches a key absent from a good document as a permanent failure without refetching', async () => {
    const host = fakeHost(ok(documentFor(keyA)))
    const resolver = new DidResolver({ fetchDidDocument: host.fetchDidDocument })
    expect(await failure(resolver.resolveKey(`${DID}#nope`))).toBe(
      'key_resolution_failed:verification_method_not_found',
    )
    expect(await failure(resolver.resolveKey(`${DID}#nope`))).toBe(
      'key_resolution_failed:verification_method_not_found',
    )
    expect((await resolver.resolveKey(KEY_ID)).did).toBe(DID)
    expect(host.urls).toHaveLength(1)
  })

  it('evicts the least recently used DID beyond maxEntries', async () => {
    const host = fakeHost(ok(documentFor(keyA)))
    const other = 'did:web:other.example'
    const fetchDidDocument = async (url: URL) => {
      await host.fetchDidDocument(url)
      return ok(documentFor(keyA, 'key-1', url.hostname === 'other.example' ? other : DID))
    }
    const resolver = new DidResolver({ fetchDidDocument, maxEntries: 1 })
    await resolver.resolveKey(KEY_ID)
    await resolver.resolveKey(`${other}#key-1`)
    await resolver.resolveKey(KEY_ID)
    expect(host.urls).toHaveLength(3)
  })

  it('returns a copy of the key bytes so callers cannot poison the cache', async () => {
    const resolver = new DidResolver({ fetchDidDocument: fakeHost(ok(documentFor(keyA))).fetchDidDocument })
    const first = await resolver.resolveKey(KEY_ID)
    first.publicKey.fill(0)
    expect(Buffer.from((await resolver.resolveKey(KEY_ID)).publicKey).equals(Buffer.from(keyA))).toBe(true)
  })

  const big = new Uint8Array(MAX_DID_DOCUMENT_BYTES + 1).fill(0x20)
  it.each<[string, Reply, string]>([
    ['404', { status: 404, body: new Uint8Array() }, 'key_resolution_failed:document_not_found'],
    ['410', { status: 410, body: new Uint8Array() }, 'key_resolution_failed:document_not_found'],
    ['a body over 64 KB', ok(big), 'key_resolution_failed:document_too_large'],
    ['invalid JSON', ok(new TextEncoder().encode('{"id":')), 'key_resolution_failed:invalid_json'],
    ['invalid UTF-8', ok(Uint8Array.of(0x7b, 0xff, 0x7d)), 'key_resolution_failed:invalid_json'],
    [
      'duplicate keys',
      ok(new TextEncoder().encode(`{"id":"${DID}","id":"${DID}"}`)),
      'key_resolution_failed:invalid_json',
    ],
    ['a JSON array', ok(new TextEncoder().encode('[]')), 'key_resolution_failed:document_not_object'],
    [
      'a document for another DID',
      ok(documentFor(keyA, 'key-1', 'did:web:evil.example')),
      'key_resolution_failed:document_id_mismatch',
    ],
    [
      'an outbound policy refusal',
      new ProtocolError('outbound_refused', 'private address'),
      'key_resolution_failed:outbound_refused',
    ],
    [
      'an outbound size refusal',
      new ProtocolError('outbound_too_large', 'cap'),
      'key_resolution_failed:document_too_large',
    ],
    [
      'an outbound transport failure',
      new ProtocolError('outbound_failed', 'timeout'),
      'key_resolution_unreachable:transport_error',
    ],
    ['a thrown TypeError', new TypeError('fetch failed'), 'key_resolution_unreachable:transport_error'],
    ['500', { status: 500, body: new Uint8Array() }, 'key_resolution_unreachable:http_status'],
    ['503', { status: 503, body: new Uint8Array() }, 'key_resolution_unreachable:http_status'],
    ['429', { status: 429, body: new Uint8Array() }, 'key_resolution_unreachable:http_status'],
    ['302', { status: 302, body: new Uint8Array() }, 'key_resolution_unreachable:http_status'],
    ['403', { status: 403, body: new Uint8Array() }, 'key_resolution_unreachable:http_status'],
  ])('classifies %s', async (_name, reply, expected) => {
    const resolver = new DidResolver({ fetchDidDocument: fakeHost(reply).fetchDidDocument })
    expect(await failure(resolver.resolveKey(KEY_ID))).toBe(expected)
  })

  it.each([
    ['a key_id without fragment', DID, 'key_resolution_failed:missing_fragment'],
    ['an IP-literal did:web', 'did:web:10.0.0.1#key-1', 'key_resolution_failed:invalid_host'],
    ['a path-traversing did:web', 'did:web:example.com:..:x#key-1', 'key_resolution_failed:invalid_path'],
  ])('refuses %s without fetching', async (_name, keyId, expected) => {
    const host = fakeHost(new Error('must not fetch'))
    const resolver = new DidResolver({ fetchDidDocument: host.fetchDidDocument })
    expect(await failure(resolver.resolveKey(keyId))).toBe(expected)
    expect(host.urls).toEqual([])
  })

  it('refuses web resolution when only did:key is allowed', async () => {
    const resolver = new DidResolver({
      fetchDidDocument: fakeHost(new Error('no')).fetchDidDocument,
      allowedMethods: ['key'],
    })
    expect(await failure(resolver.resolveKey(KEY_ID))).toBe('key_resolution_failed:unsupported_did_method')
  })
})
