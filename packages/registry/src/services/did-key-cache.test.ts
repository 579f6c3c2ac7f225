import { ProtocolError, type ResolvedKey } from '@acdp/protocol'
import { describe, expect, it } from 'vitest'
import { withDidKeyCache } from './did-key-cache.js'

function countingResolver(fail = false) {
  const calls: string[] = []
  return {
    calls,
    async resolveKey(keyId: string): Promise<ResolvedKey> {
      calls.push(keyId)
      if (fail) throw new ProtocolError('key_resolution_failed', 'bad')
      return {
        algorithm: 'ed25519',
        publicKey: new Uint8Array(32).fill(calls.length),
        did: keyId.split('#')[0] as string,
        keyId,
      }
    },
  }
}

describe('withDidKeyCache', () => {
  it('resolves each did:key once and never caches did:web', async () => {
    const inner = countingResolver()
    const cached = withDidKeyCache(inner)
    await cached.resolveKey('did:key:z1#z1')
    await cached.resolveKey('did:key:z1#z1')
    await cached.resolveKey('did:web:a.example#k')
    await cached.resolveKey('did:web:a.example#k')
    expect(inner.calls).toEqual(['did:key:z1#z1', 'did:web:a.example#k', 'did:web:a.example#k'])
  })

  it('hands out copies, so a caller cannot corrupt the cached key', async () => {
    const cached = withDidKeyCache(countingResolver())
    const first = await cached.resolveKey('did:key:z1#z1')
    first.publicKey.fill(0xff)
    expect((await cached.resolveKey('did:key:z1#z1')).publicKey[0]).toBe(1)
  })

  it('does not cache failures and evicts the least recently used key', async () => {
    const failing = countingResolver(true)
    const cachedFailing = withDidKeyCache(failing)
    await expect(cachedFailing.resolveKey('did:key:zx#zx')).rejects.toThrow()
    await expect(cachedFailing.resolveKey('did:key:zx#zx')).rejects.toThrow()
    expect(failing.calls).toHaveLength(2)
    const inner = countingResolver()
    const cached = withDidKeyCache(inner, 2)
    for (const id of ['a', 'b', 'a', 'c', 'a', 'b']) await cached.resolveKey(`did:key:z${id}#z${id}`)
    expect(inner.calls.map((k) => k.slice(9, 10))).toEqual(['a', 'b', 'c', 'b'])
  })
})
