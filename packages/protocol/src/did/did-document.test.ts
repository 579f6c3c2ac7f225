import { p256 } from '@noble/curves/nist.js'
import { describe, expect, it } from 'vitest'
import { ed25519PublicKeyFromSeed } from '../signature/ed25519.js'
import { SMALL_ORDER_ENCODINGS } from '../signature/ed25519-small-order.js'
import { parseDidDocument } from './did-document.js'
import { encodeMultibaseKey } from './did-key.js'
import { protocolErrorReasonOf as reason } from '../../test/support/rejection.js'

const DID = 'did:web:agents.example.com:producer'
const KEY_ID = `${DID}#key-1`
const edKey = ed25519PublicKeyFromSeed(new Uint8Array(32).fill(2))
const p256Full = p256.getPublicKey(new Uint8Array(32).fill(2), false)
const b64u = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url')
const edJwk = { kty: 'OKP', crv: 'Ed25519', x: b64u(edKey) }
const p256Jwk = { kty: 'EC', crv: 'P-256', x: b64u(p256Full.subarray(1, 33)), y: b64u(p256Full.subarray(33)) }

type Doc = Record<string, unknown>
function documentWith(method: Record<string, unknown>, assertion: unknown[] = [KEY_ID], extra: Doc = {}): Doc {
  return {
    id: DID,
    verificationMethod: [{ id: KEY_ID, controller: DID, ...method }],
    assertionMethod: assertion,
    ...extra,
  }
}

describe('parseDidDocument', () => {
  it.each([
    ['JsonWebKey2020 + OKP JWK', { type: 'JsonWebKey2020', publicKeyJwk: edJwk }, 'ed25519'],
    [
      'Ed25519VerificationKey2020 + multibase',
      {
        type: 'Ed25519VerificationKey2020',
        publicKeyMultibase: encodeMultibaseKey({ algorithm: 'ed25519', publicKey: edKey }),
      },
      'ed25519',
    ],
    ['Ed25519VerificationKey2018 + OKP JWK', { type: 'Ed25519VerificationKey2018', publicKeyJwk: edJwk }, 'ed25519'],
    [
      'Multikey + multibase',
      { type: 'Multikey', publicKeyMultibase: encodeMultibaseKey({ algorithm: 'ed25519', publicKey: edKey }) },
      'ed25519',
    ],
    ['JsonWebKey2020 + EC P-256 JWK', { type: 'JsonWebKey2020', publicKeyJwk: p256Jwk }, 'ecdsa-p256'],
  ])('extracts the key from %s', (_name, method, algorithm) => {
    const key = parseDidDocument(documentWith(method), DID, KEY_ID)
    expect(key.algorithm).toBe(algorithm)
    const expected = algorithm === 'ed25519' ? edKey : p256.getPublicKey(new Uint8Array(32).fill(2), true)
    expect(Buffer.from(key.publicKey).equals(Buffer.from(expected))).toBe(true)
  })

  it('accepts relative ids in verificationMethod and assertionMethod', () => {
    const doc = {
      id: DID,
      verificationMethod: [{ id: '#key-1', type: 'JsonWebKey2020', publicKeyJwk: edJwk }],
      assertionMethod: ['#key-1'],
    }
    expect(parseDidDocument(doc, DID, KEY_ID).algorithm).toBe('ed25519')
    const mixed = documentWith({ type: 'JsonWebKey2020', publicKeyJwk: edJwk }, ['#key-1'])
    expect(parseDidDocument(mixed, DID, KEY_ID).algorithm).toBe('ed25519')
  })

  it('accepts a method embedded in assertionMethod', () => {
    const doc = {
      id: DID,
      assertionMethod: [{ id: KEY_ID, type: 'JsonWebKey2020', controller: DID, publicKeyJwk: edJwk }],
    }
    expect(parseDidDocument(doc, DID, KEY_ID).algorithm).toBe('ed25519')
  })

  it.each<[string, () => unknown, string]>([
    ['a non-object document', () => parseDidDocument([], DID, KEY_ID), 'document_not_object'],
    [
      'a document for another DID',
      () =>
        parseDidDocument(
          { ...documentWith({ type: 'JsonWebKey2020', publicKeyJwk: edJwk }), id: 'did:web:evil.example' },
          DID,
          KEY_ID,
        ),
      'document_id_mismatch',
    ],
    [
      'a key_id of another DID',
      () =>
        parseDidDocument(
          documentWith({ type: 'JsonWebKey2020', publicKeyJwk: edJwk }),
          DID,
          'did:web:evil.example#key-1',
        ),
      'key_id_did_mismatch',
    ],
    ['a key_id without fragment', () => parseDidDocument(documentWith({}), DID, DID), 'invalid_key_id'],
    [
      'an absent key',
      () => parseDidDocument(documentWith({ type: 'JsonWebKey2020', publicKeyJwk: edJwk }), DID, `${DID}#key-2`),
      'verification_method_not_found',
    ],
    [
      'a method whose id only ends with the fragment',
      () =>
        parseDidDocument(
          {
            id: DID,
            verificationMethod: [{ id: 'did:web:evil.example#key-1', type: 'JsonWebKey2020', publicKeyJwk: edJwk }],
            assertionMethod: ['did:web:evil.example#key-1'],
          },
          DID,
          KEY_ID,
        ),
      'verification_method_not_found',
    ],
    [
      'duplicate method ids',
      () =>
        parseDidDocument(
          {
            id: DID,
            verificationMethod: [
              { id: KEY_ID, type: 'JsonWebKey2020', publicKeyJwk: edJwk },
              { id: '#key-1', type: 'JsonWebKey2020', publicKeyJwk: p256Jwk },
            ],
            assertionMethod: [KEY_ID],
          },
          DID,
          KEY_ID,
        ),
      'duplicate_verification_method',
    ],
    [
      'a key not in assertionMethod',
      () =>
        parseDidDocument(documentWith({ type: 'JsonWebKey2020', publicKeyJwk: edJwk }, [`${DID}#key-2`]), DID, KEY_ID),
      'not_in_assertion_method',
    ],
    [
      'a key only in authentication',
      () =>
        parseDidDocument(
          {
            ...documentWith({ type: 'JsonWebKey2020', publicKeyJwk: edJwk }),
            assertionMethod: undefined,
            authentication: [KEY_ID],
          },
          DID,
          KEY_ID,
        ),
      'not_in_assertion_method',
    ],
    [
      'a non-array verificationMethod',
      () => parseDidDocument({ id: DID, verificationMethod: {}, assertionMethod: [KEY_ID] }, DID, KEY_ID),
      'invalid_document',
    ],
    [
      'a foreign controller',
      () =>
        parseDidDocument(
          documentWith({ type: 'JsonWebKey2020', publicKeyJwk: edJwk, controller: 'did:web:evil.example' }),
          DID,
          KEY_ID,
        ),
      'controller_mismatch',
    ],
    [
      'EcdsaSecp256r1VerificationKey2019',
      () =>
        parseDidDocument(
          documentWith({ type: 'EcdsaSecp256r1VerificationKey2019', publicKeyJwk: p256Jwk }),
          DID,
          KEY_ID,
        ),
      'unsupported_verification_method_type',
    ],
    [
      'an unknown type',
      () => parseDidDocument(documentWith({ type: 'RsaVerificationKey2018', publicKeyJwk: edJwk }), DID, KEY_ID),
      'unsupported_verification_method_type',
    ],
    [
      'a missing type',
      () => parseDidDocument(documentWith({ publicKeyJwk: edJwk }), DID, KEY_ID),
      'unsupported_verification_method_type',
    ],
    [
      'an Ed25519 type carrying a P-256 key',
      () => parseDidDocument(documentWith({ type: 'Ed25519VerificationKey2020', publicKeyJwk: p256Jwk }), DID, KEY_ID),
      'key_type_mismatch',
    ],
    [
      'Multikey carrying a P-256 key',
      () => parseDidDocument(documentWith({ type: 'Multikey', publicKeyJwk: p256Jwk }), DID, KEY_ID),
      'key_type_mismatch',
    ],
    [
      'no key material',
      () => parseDidDocument(documentWith({ type: 'JsonWebKey2020' }), DID, KEY_ID),
      'missing_key_material',
    ],
    [
      'both key materials',
      () =>
        parseDidDocument(
          documentWith({
            type: 'JsonWebKey2020',
            publicKeyJwk: edJwk,
            publicKeyMultibase: encodeMultibaseKey({ algorithm: 'ed25519', publicKey: edKey }),
          }),
          DID,
          KEY_ID,
        ),
      'ambiguous_key_material',
    ],
    [
      'a JWK with a private key',
      () =>
        parseDidDocument(documentWith({ type: 'JsonWebKey2020', publicKeyJwk: { ...edJwk, d: edJwk.x } }), DID, KEY_ID),
      'private_key_in_document',
    ],
    [
      'a compressed P-256 JWK',
      () =>
        parseDidDocument(
          documentWith({ type: 'JsonWebKey2020', publicKeyJwk: { ...p256Jwk, y: undefined } }),
          DID,
          KEY_ID,
        ),
      'unsupported_key_encoding',
    ],
    [
      'a P-256 multibase key',
      () =>
        parseDidDocument(
          documentWith({
            type: 'JsonWebKey2020',
            publicKeyMultibase: encodeMultibaseKey({ algorithm: 'ecdsa-p256', publicKey: p256Full }),
          }),
          DID,
          KEY_ID,
        ),
      'unsupported_key_encoding',
    ],
    [
      'a padded JWK coordinate',
      () =>
        parseDidDocument(
          documentWith({ type: 'JsonWebKey2020', publicKeyJwk: { ...edJwk, x: `${edJwk.x}=` } }),
          DID,
          KEY_ID,
        ),
      'invalid_jwk',
    ],
    [
      'a standard-base64 JWK coordinate',
      () =>
        parseDidDocument(
          documentWith({ type: 'JsonWebKey2020', publicKeyJwk: { ...edJwk, x: `${'A'.repeat(41)}+/` } }),
          DID,
          KEY_ID,
        ),
      'invalid_jwk',
    ],
    [
      'a JWK coordinate with non-zero trailing bits',
      () =>
        parseDidDocument(
          documentWith({ type: 'JsonWebKey2020', publicKeyJwk: { ...edJwk, x: `${'A'.repeat(42)}B` } }),
          DID,
          KEY_ID,
        ),
      'invalid_jwk',
    ],
    [
      'a 31-byte JWK coordinate',
      () =>
        parseDidDocument(
          documentWith({ type: 'JsonWebKey2020', publicKeyJwk: { ...edJwk, x: b64u(edKey.subarray(1)) } }),
          DID,
          KEY_ID,
        ),
      'invalid_jwk',
    ],
    [
      'a secp256k1 JWK',
      () =>
        parseDidDocument(
          documentWith({ type: 'JsonWebKey2020', publicKeyJwk: { ...p256Jwk, crv: 'secp256k1' } }),
          DID,
          KEY_ID,
        ),
      'unsupported_key_type',
    ],
    [
      'an X25519 JWK',
      () =>
        parseDidDocument(
          documentWith({ type: 'JsonWebKey2020', publicKeyJwk: { ...edJwk, crv: 'X25519' } }),
          DID,
          KEY_ID,
        ),
      'unsupported_key_type',
    ],
    [
      'a small-order Ed25519 key',
      () =>
        parseDidDocument(
          documentWith({ type: 'JsonWebKey2020', publicKeyJwk: { ...edJwk, x: b64u(SMALL_ORDER_ENCODINGS[0]!) } }),
          DID,
          KEY_ID,
        ),
      'invalid_public_key',
    ],
    [
      'an off-curve P-256 key',
      () =>
        parseDidDocument(
          documentWith({ type: 'JsonWebKey2020', publicKeyJwk: { ...p256Jwk, y: b64u(new Uint8Array(32).fill(1)) } }),
          DID,
          KEY_ID,
        ),
      'invalid_public_key',
    ],
    [
      'an undecodable multibase',
      () => parseDidDocument(documentWith({ type: 'Multikey', publicKeyMultibase: 'zIII' }), DID, KEY_ID),
      'invalid_multibase_key',
    ],
  ])('refuses %s with key_resolution_failed', (_name, run, expected) => {
    expect(reason(run)).toBe(`key_resolution_failed:${expected}`)
  })
})

describe('historical resolution (RFC-ACDP-0010 §10)', () => {
  it('accepts a retired key listed only in verificationMethod, and still refuses a missing one', () => {
    const retired = documentWith({ type: 'JsonWebKey2020', publicKeyJwk: edJwk }, [`${DID}#key-2`])
    expect(parseDidDocument(retired, DID, KEY_ID, { historical: true })).toEqual({
      algorithm: 'ed25519',
      publicKey: edKey,
    })
    expect(reason(() => parseDidDocument(retired, DID, `${DID}#key-9`, { historical: true }))).toBe(
      'key_resolution_failed:verification_method_not_found',
    )
  })
})
