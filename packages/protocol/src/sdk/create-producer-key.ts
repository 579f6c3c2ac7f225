/**
 * New producer identities (RFC-ACDP-0001 §5.4, §5.8 "Key generation", §5.11): a fresh key from the OS CSPRNG
 * bound to a did:key (the default: self-certifying, nothing to host) or to a did:web, together with the DID
 * document a did:web producer must serve.
 */
import { didKeyKeyId, encodeDidKey, encodeMultibaseKey } from '../did/did-key.js'
import { didWebToUrl } from '../did/did-web.js'
import { decompressP256PublicKey } from '../keys/p256-point.js'
import type { SignatureAlgorithm } from '../signature/algorithm.js'
import { generateSigningKey } from '../signature/generate-signing-key.js'
import type { ProducerKey } from './producer-key.js'

/** Fragment given to a did:web producer's key unless the caller picks one. */
export const DEFAULT_DID_WEB_KEY_FRAGMENT = 'key-1'

/** Options of {@link createProducerKey}. */
export interface CreateProducerKeyOptions {
  /** Default `ed25519` (the algorithm every registry supports, §5.10). */
  algorithm?: SignatureAlgorithm
  /** Bind the key to this did:web DID instead of a did:key. */
  didWeb?: string
  /** Fragment of the did:web key id; default {@link DEFAULT_DID_WEB_KEY_FRAGMENT}. */
  fragment?: string
}

/**
 * Generates a signing key and its identity: did:key (`key_id` = `did:key:z…#z…`) by default, or the given
 * did:web with `key_id` `<did>#<fragment>`.
 *
 * @throws ProtocolError `invalid_did` when `didWeb` is not a did:web DID that resolves to an HTTPS URL.
 * @throws TypeError when the fragment is empty or not URL-safe.
 */
export function createProducerKey(options: CreateProducerKeyOptions = {}): ProducerKey {
  const { algorithm = 'ed25519', didWeb, fragment = DEFAULT_DID_WEB_KEY_FRAGMENT } = options
  if (didWeb !== undefined) {
    didWebToUrl(didWeb)
    if (!/^[A-Za-z0-9._~-]+$/.test(fragment))
      throw new TypeError('key fragment must be non-empty and URL-safe ([A-Za-z0-9._~-])')
  }
  const generated = generateSigningKey(algorithm)
  const did = didWeb ?? encodeDidKey(generated)
  return {
    algorithm,
    did,
    keyId: didWeb === undefined ? didKeyKeyId(did) : `${did}#${fragment}`,
    privateKey: generated.privateKey,
    publicKey: generated.publicKey,
  }
}

/**
 * The DID document a did:web producer serves at `didWebToUrl(did)` so registries can resolve its key
 * (§5.11 steps 3–6): one verification method, referenced by `assertionMethod`. Ed25519 keys are published as
 * `Ed25519VerificationKey2020` with `publicKeyMultibase`; P-256 keys as `JsonWebKey2020` with an uncompressed
 * `publicKeyJwk` (registries/signature-algorithms.md forbids compressed or multibase P-256 keys).
 *
 * @throws ProtocolError `invalid_public_key` when the key material is not a valid public key.
 */
export function buildDidWebDocument(
  key: Pick<ProducerKey, 'algorithm' | 'did' | 'keyId' | 'publicKey'>,
): Record<string, unknown> {
  const common = { id: key.keyId, controller: key.did }
  const method =
    key.algorithm === 'ed25519'
      ? { ...common, type: 'Ed25519VerificationKey2020', publicKeyMultibase: encodeMultibaseKey(key) }
      : { ...common, type: 'JsonWebKey2020', publicKeyJwk: p256Jwk(key.publicKey) }
  return {
    '@context': [
      'https://www.w3.org/ns/did/v1',
      key.algorithm === 'ed25519'
        ? 'https://w3id.org/security/suites/ed25519-2020/v1'
        : 'https://w3id.org/security/suites/jws-2020/v1',
    ],
    id: key.did,
    verificationMethod: [method],
    assertionMethod: [key.keyId],
  }
}

function p256Jwk(publicKey: Uint8Array): Record<string, string> {
  const uncompressed = decompressP256PublicKey(publicKey)
  const base64url = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64url')
  return {
    kty: 'EC',
    crv: 'P-256',
    x: base64url(uncompressed.subarray(1, 33)),
    y: base64url(uncompressed.subarray(33, 65)),
  }
}
