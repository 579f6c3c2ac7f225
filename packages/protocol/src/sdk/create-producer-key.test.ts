import { describe, expect, it } from 'vitest'
import { parseDidDocument } from '../did/did-document.js'
import { parseDidKey } from '../did/did-key.js'
import { ProtocolError } from '../errors.js'
import { buildDidWebDocument, createProducerKey } from './create-producer-key.js'
import { formatKeyFile, parseKeyFile } from './producer-key.js'

describe('createProducerKey', () => {
  it.each([['ed25519' as const], ['ecdsa-p256' as const]])('binds a fresh %s key to its did:key', (algorithm) => {
    const key = createProducerKey({ algorithm })
    expect(key.did).toMatch(/^did:key:z/)
    expect(key.keyId).toBe(`${key.did}#${key.did.slice('did:key:'.length)}`)
    expect(parseDidKey(key.did)).toEqual({ algorithm, publicKey: key.publicKey })
    expect(parseKeyFile(formatKeyFile(key))).toEqual(key)
  })

  it('defaults to ed25519', () => {
    expect(createProducerKey().algorithm).toBe('ed25519')
  })

  it('never returns the same key twice', () => {
    expect(createProducerKey().did).not.toBe(createProducerKey().did)
  })

  it('binds a key to a did:web with the given fragment', () => {
    const key = createProducerKey({ didWeb: 'did:web:agents.example.com:alice', fragment: 'signing' })
    expect(key).toMatchObject({
      did: 'did:web:agents.example.com:alice',
      keyId: 'did:web:agents.example.com:alice#signing',
    })
  })

  it('refuses a did:web that does not resolve to an HTTPS URL', () => {
    expect(() => createProducerKey({ didWeb: 'did:web:127.0.0.1' })).toThrow(ProtocolError)
    expect(() => createProducerKey({ didWeb: 'did:key:z6Mk' })).toThrow(
      expect.objectContaining({ code: 'invalid_did' }),
    )
  })

  it('refuses an empty fragment', () => {
    expect(() => createProducerKey({ didWeb: 'did:web:agents.example.com', fragment: '' })).toThrow(TypeError)
  })

  it('refuses a did:key file whose DID names a different key', () => {
    const key = createProducerKey()
    const other = createProducerKey()
    const text = formatKeyFile({ ...key, did: other.did, keyId: other.keyId })
    expect(() => parseKeyFile(text)).toThrow(
      expect.objectContaining({ code: 'invalid_public_key', details: { reason: 'did_key_mismatch' } }),
    )
  })
})

describe('buildDidWebDocument', () => {
  it.each([['ed25519' as const], ['ecdsa-p256' as const]])(
    'publishes a %s key the did:web resolver extracts unchanged',
    (algorithm) => {
      const key = createProducerKey({ algorithm, didWeb: 'did:web:agents.example.com%3A8443:bob' })
      const document = buildDidWebDocument(key)
      expect(parseDidDocument(JSON.parse(JSON.stringify(document)), key.did, key.keyId)).toEqual({
        algorithm,
        publicKey: key.publicKey,
      })
    },
  )
})
