import { describe, expect, it } from 'vitest'
import { createPinnedKeyDirectory, parsePinnedKeys } from './pinned-keys.js'

const ED = Buffer.alloc(32, 1).toString('base64') // ends with '='
const P256 = Buffer.concat([Buffer.from([2]), Buffer.alloc(32, 3)]).toString('base64')

describe('CONTROL_PLANE_PINNED_KEYS', () => {
  it('splits on the first = (base64 padding), defaults to ed25519, reads algorithm and window', () => {
    const { keys, problems } = parsePinnedKeys(
      `did:web:a.example=${ED}, did:web:b.example=${P256}:ecdsa-p256:100..200,did:key:z6Mk=${ED}:..50`,
    )
    expect(problems).toEqual([])
    expect(keys.map((k) => [k.did, k.algorithm, k.publicKey.length, k.validFrom, k.validUntil])).toEqual([
      ['did:web:a.example', 'ed25519', 32, undefined, undefined],
      ['did:web:b.example', 'ecdsa-p256', 33, 100, 200],
      ['did:key:z6Mk', 'ed25519', 32, undefined, 50],
    ])
  })

  it.each([
    ['no DID', `=${ED}`],
    ['not a DID', `alice=${ED}`],
    ['a short Ed25519 key', `did:web:a.example=${Buffer.alloc(31).toString('base64')}`],
    ['a P-256 key that is not a SEC1 point', `did:web:a.example=${ED}:ecdsa-p256`],
    ['the bare window ..', `did:web:a.example=${ED}:..`],
    ['an empty window', `did:web:a.example=${ED}:200..100`],
    ['an unknown option', `did:web:a.example=${ED}:rsa`],
    ['non-base64', 'did:web:a.example=***'],
  ])('refuses %s and never echoes the key', (_name, value) => {
    const { keys, problems } = parsePinnedKeys(value)
    expect(keys).toEqual([])
    expect(problems).toHaveLength(1)
    expect(problems[0]).toMatch(/^CONTROL_PLANE_PINNED_KEYS entry 1 /)
    expect(problems[0]).not.toContain(ED)
  })

  it('finds the key valid at a time (from inclusive, until exclusive) and swaps atomically', () => {
    const { keys } = parsePinnedKeys(`did:web:a.example=${ED}:..100,did:web:a.example=${P256}:ecdsa-p256:100..`)
    const directory = createPinnedKeyDirectory(keys)
    expect(directory.find('did:web:a.example', 99)?.algorithm).toBe('ed25519')
    expect(directory.find('did:web:a.example', 100)?.algorithm).toBe('ecdsa-p256')
    expect(directory.find('did:web:other.example', 100)).toBeUndefined()
    expect(directory.count()).toBe(2)
    directory.replace([])
    expect(directory.find('did:web:a.example', 99)).toBeUndefined()
    expect(directory.count()).toBe(0)
  })
})
