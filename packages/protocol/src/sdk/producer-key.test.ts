import { describe, expect, it } from 'vitest'
import { ProtocolError } from '../errors.js'
import { encodeBase64 } from '../signature/base64.js'
import { generateSigningKey } from '../signature/generate-signing-key.js'
import { formatKeyFile, type ProducerKey, parseKeyFile } from './producer-key.js'

function sampleKey(algorithm: 'ed25519' | 'ecdsa-p256'): ProducerKey {
  const generated = generateSigningKey(algorithm)
  return { ...generated, did: 'did:web:agents.example.com:alice', keyId: 'did:web:agents.example.com:alice#key-1' }
}

function keyFileWith(overrides: Record<string, unknown>): string {
  const document = JSON.parse(formatKeyFile(sampleKey('ed25519')))
  return JSON.stringify({ ...document, ...overrides })
}

describe('key files', () => {
  it.each([['ed25519' as const], ['ecdsa-p256' as const]])(
    'a %s key survives format → parse unchanged',
    (algorithm) => {
      const key = sampleKey(algorithm)
      const text = formatKeyFile(key)
      expect(Object.keys(JSON.parse(text)).sort()).toEqual(['algorithm', 'did', 'key_id', 'private_key', 'public_key'])
      expect(parseKeyFile(text)).toEqual(key)
    },
  )

  it.each([
    ['text that is not JSON', 'not json', 'invalid_json'],
    ['a JSON array', '[]', 'not_an_object'],
    ['an unknown algorithm', keyFileWith({ algorithm: 'rsa' }), 'algorithm'],
    ['a did that is not a DID', keyFileWith({ did: 'alice' }), 'did'],
    ['a key_id of another DID', keyFileWith({ key_id: 'did:web:mallory.example#key-1' }), 'key_id'],
    ['a key_id without fragment', keyFileWith({ key_id: 'did:web:agents.example.com:alice#' }), 'key_id'],
    ['url-safe base64', keyFileWith({ private_key: 'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA-_' }), 'private_key'],
    ['a short private key', keyFileWith({ private_key: encodeBase64(new Uint8Array(31)) }), 'private_key'],
    ['a missing public key', keyFileWith({ public_key: undefined }), 'public_key'],
  ])('refuses %s with malformed_input', (_name, text, reason) => {
    expect(() => parseKeyFile(text)).toThrow(ProtocolError)
    expect(() => parseKeyFile(text)).toThrow(
      expect.objectContaining({ code: 'malformed_input', details: expect.objectContaining({ reason }) }),
    )
  })

  it('refuses a public key that does not belong to the private key', () => {
    const other = generateSigningKey('ed25519')
    const text = keyFileWith({ public_key: encodeBase64(other.publicKey) })
    expect(() => parseKeyFile(text)).toThrow(expect.objectContaining({ code: 'invalid_public_key' }))
  })

  it('refuses a P-256 scalar of zero with malformed_input, not a TypeError', () => {
    const key = sampleKey('ecdsa-p256')
    const text = JSON.stringify({ ...JSON.parse(formatKeyFile(key)), private_key: encodeBase64(new Uint8Array(32)) })
    expect(() => parseKeyFile(text)).toThrow(
      expect.objectContaining({ code: 'malformed_input', details: { reason: 'private_key' } }),
    )
  })
})
