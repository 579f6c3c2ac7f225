import {
  DidResolver,
  ed25519PublicKeyFromSeed,
  encodeMultibaseKey,
  type OutboundClient,
  registryDidForAuthority,
} from '@acdp/protocol'
import { describe, expect, it } from 'vitest'
import { createRegistryKeyResolver, readsThroughBaseUrl } from './witness-registry-keys.js'

const SEED = new Uint8Array(32).fill(9)

/** A DID document publishing one Ed25519 assertion key `<did>#receipt-key-1`. */
function didDocument(did: string): Uint8Array {
  const keyId = `${did}#receipt-key-1`
  return new TextEncoder().encode(
    JSON.stringify({
      id: did,
      verificationMethod: [
        {
          id: keyId,
          type: 'Ed25519VerificationKey2020',
          controller: did,
          publicKeyMultibase: encodeMultibaseKey({ algorithm: 'ed25519', publicKey: ed25519PublicKeyFromSeed(SEED) }),
        },
      ],
      assertionMethod: [keyId],
    }),
  )
}

/** Records every URL each path was asked for, answering any did.json with the document of the DID it names. */
function recordingSetup() {
  const viaOutbound: string[] = []
  const viaStandard: string[] = []
  const documentFor = (url: URL, did: string) => ({ status: 200, body: didDocument(did) })
  const outbound: OutboundClient = {
    async request(url) {
      viaOutbound.push(String(url))
      // The enrolled base URL serves the registry's own document (the DID is the one of `localhost`).
      return {
        ...documentFor(new URL(String(url)), registryDidForAuthority('localhost')),
        headers: {},
        url: String(url),
      }
    },
    async checkUrl() {},
    async close() {},
  }
  const standard = new DidResolver({
    fetchDidDocument: async (url) => {
      viaStandard.push(url.href)
      return documentFor(url, `did:web:${url.host.replace(':', '%3A')}`)
    },
  })
  const resolve = createRegistryKeyResolver({ standard, outbound, now: () => Date.now() })
  return { resolve, viaOutbound, viaStandard }
}

describe('registry key resolution for the witness', () => {
  it('reads a plain-http registry’s own did:web document under its enrolled base URL (dev stack)', async () => {
    const { resolve, viaOutbound, viaStandard } = recordingSetup()
    const key = await resolve('did:web:localhost#receipt-key-1', {
      forceRefresh: false,
      registry: { authority: 'localhost', baseUrl: 'http://127.0.0.1:4100/prefix' },
    })
    expect(key.publicKey).toEqual(ed25519PublicKeyFromSeed(SEED))
    expect(viaOutbound).toEqual(['http://127.0.0.1:4100/prefix/.well-known/did.json'])
    expect(viaStandard).toEqual([])
  })

  it('finds the base URL of an authority with an explicit default port (the DID URL drops it)', async () => {
    const { resolve, viaOutbound } = recordingSetup()
    await resolve('did:web:localhost%3A443#receipt-key-1', {
      forceRefresh: false,
      registry: { authority: 'localhost:443', baseUrl: 'http://127.0.0.1:4100' },
    }).catch(() => undefined) // the recorded document names did:web:localhost; only the URL matters here
    expect(viaOutbound).toEqual(['http://127.0.0.1:4100/.well-known/did.json'])
  })

  it('keeps the standard did:web resolution for an https enrollment, even at another host', async () => {
    const { resolve, viaOutbound, viaStandard } = recordingSetup()
    await resolve('did:web:registry.example#receipt-key-1', {
      forceRefresh: false,
      registry: { authority: 'registry.example', baseUrl: 'https://mirror.example' },
    })
    expect(viaStandard).toEqual(['https://registry.example/.well-known/did.json'])
    expect(viaOutbound).toEqual([])
  })

  it('never reads another DID through a registry’s base URL', () => {
    const registry = { authority: 'localhost', baseUrl: 'http://127.0.0.1:4100' }
    expect(readsThroughBaseUrl('did:web:localhost#k', registry)).toBe(true)
    expect(readsThroughBaseUrl('did:web:other.example#k', registry)).toBe(false)
    expect(readsThroughBaseUrl('did:web:localhost%3A4100#k', registry)).toBe(false)
    expect(readsThroughBaseUrl('not a key id', registry)).toBe(false)
    expect(readsThroughBaseUrl('did:web:localhost#k', { authority: 'localhost', baseUrl: 'https://127.0.0.1' })).toBe(
      false,
    )
    expect(readsThroughBaseUrl('did:web:localhost#k', { authority: 'localhost', baseUrl: 'not a url' })).toBe(false)
  })
})
