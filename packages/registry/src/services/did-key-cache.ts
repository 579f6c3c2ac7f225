/**
 * did:key resolution is a pure function of the key_id (RFC-ACDP-0001 §5.11.1: the key is the identifier), but
 * decoding and validating the point costs hundreds of microseconds — more than the signature check itself.
 * Successful did:key resolutions are therefore memoized in a bounded LRU; failures are not (they cost the
 * sender a request each, and caching them would let junk evict real producers). did:web goes straight through:
 * its document cache, TTL and rotation rules live in the DidResolver.
 */
import type { ResolvedKey } from '@acdp/protocol'
import type { KeyResolver } from '../deps.js'

export const DEFAULT_DID_KEY_CACHE_ENTRIES = 10_000

export function withDidKeyCache(resolver: KeyResolver, maxEntries = DEFAULT_DID_KEY_CACHE_ENTRIES): KeyResolver {
  // Insertion-ordered Map as an LRU: hits move to the end, eviction takes from the front.
  const cache = new Map<string, ResolvedKey>()
  return {
    async resolveKey(keyId, options) {
      if (!keyId.startsWith('did:key:')) return resolver.resolveKey(keyId, options)
      const hit = cache.get(keyId)
      if (hit) {
        cache.delete(keyId)
        cache.set(keyId, hit)
        return { ...hit, publicKey: new Uint8Array(hit.publicKey) }
      }
      const resolved = await resolver.resolveKey(keyId, options)
      cache.set(keyId, { ...resolved, publicKey: new Uint8Array(resolved.publicKey) })
      if (cache.size > maxEntries) {
        const oldest = cache.keys().next().value
        if (oldest !== undefined) cache.delete(oldest)
      }
      return resolved
    },
  }
}
