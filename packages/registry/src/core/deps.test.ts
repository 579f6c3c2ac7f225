import { didKeyKeyId, encodeDidKey, generateSigningKey } from '@acdp/protocol'
import { describe, expect, it } from 'vitest'
import { resolveConfig } from './config.js'
import { createDefaultDeps, createRandomPool } from './deps.js'
import type { RegistryStore } from '../store/store.js'

describe('createRandomPool', () => {
  it('never hands out the same bytes twice, across refills', () => {
    const random = createRandomPool(64)
    const seen = new Set<string>()
    for (let i = 0; i < 200; i++) {
      const bytes = random(16)
      expect(bytes).toHaveLength(16)
      const hex = Buffer.from(bytes).toString('hex')
      expect(seen.has(hex)).toBe(false)
      seen.add(hex)
    }
  })

  it('returns independent copies and serves large requests directly', () => {
    const random = createRandomPool(64)
    const a = random(8)
    const copy = Uint8Array.from(a)
    random(8)
    expect(a).toEqual(copy)
    expect(random(1000)).toHaveLength(1000)
  })
})

describe('createDefaultDeps witness key resolution', () => {
  const witnessKey = generateSigningKey('ed25519')
  const witnessDid = encodeDidKey({ algorithm: 'ed25519', publicKey: witnessKey.publicKey })
  const configWith = (didMethods: string[]) =>
    resolveConfig(
      {
        registry: { authority: 'registry.example.com' },
        auth: { did_methods: didMethods },
        receipt: { signing_key_seed_b64: Buffer.alloc(32, 3).toString('base64') },
        log: { enabled: true },
        witnesses: [{ did: witnessDid, url: 'https://witness.example.org/log/witness', poll_seconds: 60 }],
      },
      { nodeEnv: 'test' },
    )

  it('resolves a did:key witness even when producers are limited to did:web', async () => {
    const deps = createDefaultDeps(configWith(['did:web']), { store: {} as RegistryStore })
    try {
      // The producer policy still refuses did:key …
      await expect(deps.resolver.resolveKey(didKeyKeyId(witnessDid))).rejects.toMatchObject({
        code: 'key_resolution_failed',
      })
      // … while the witness's cosignature key resolves.
      const resolved = await deps.witnessResolver!.resolveKey(didKeyKeyId(witnessDid))
      expect(resolved.publicKey).toEqual(witnessKey.publicKey)
    } finally {
      await deps.webhooks?.close()
      await deps.outbound?.close()
    }
  })

  it('uses the one resolver when the producer policy already accepts the witness’s method', async () => {
    const deps = createDefaultDeps(configWith(['did:web', 'did:key']), { store: {} as RegistryStore })
    try {
      expect(deps.witnessResolver).toBeUndefined()
      expect((await deps.resolver.resolveKey(didKeyKeyId(witnessDid))).publicKey).toEqual(witnessKey.publicKey)
    } finally {
      await deps.webhooks?.close()
      await deps.outbound?.close()
    }
  })
})
