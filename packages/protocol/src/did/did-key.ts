/**
 * did:key for Ed25519 and P-256 (RFC-ACDP-0001 §5.4, §5.11.1; fixtures sig-003, dk-*).
 *
 * `did:key:z<base58btc(multicodec varint ‖ key)>` with `0xed 0x01` (ed25519-pub, 32-byte key) or
 * `0x80 0x24` (p256-pub = 0x1200 as an unsigned varint, 33-byte compressed point).
 */
import { base58 } from '@scure/base'
import { isProtocolError, ProtocolError } from '../errors.js'
import { normalizePublicKey, type PublicKeyMaterial } from '../keys/public-key.js'
import { invalidDid } from './key-id.js'

const DID_KEY_PREFIX = 'did:key:'
const ED25519_CODEC = Uint8Array.of(0xed, 0x01)
const P256_CODEC = Uint8Array.of(0x80, 0x24)
/** Both supported keys encode to well under 64 base58 characters; the bound keeps base58's O(n²) decode cheap. */
const MAX_MULTIBASE_LENGTH = 128

/**
 * `did:key` identifier of a public key. P-256 keys are compressed first (the W3C `zDn…` form).
 *
 * @throws ProtocolError `invalid_public_key` / `unsupported_algorithm` for invalid key material.
 */
export function encodeDidKey(key: PublicKeyMaterial): string {
  return DID_KEY_PREFIX + encodeMultibaseKey(key)
}

/** `did:key:z…#z…`: the key_id of a did:key, whose fragment repeats the method-specific id (§5.4). */
export function didKeyKeyId(did: string): string {
  return `${did}#${did.slice(DID_KEY_PREFIX.length)}`
}

/**
 * `z` + base58btc(multicodec ‖ key) of a public key (also the `publicKeyMultibase` form).
 *
 * @throws ProtocolError `invalid_public_key` / `unsupported_algorithm` for invalid key material.
 */
export function encodeMultibaseKey(key: PublicKeyMaterial): string {
  const { algorithm, publicKey } = normalizePublicKey(key)
  const codec = algorithm === 'ed25519' ? ED25519_CODEC : P256_CODEC
  const bytes = new Uint8Array(codec.length + publicKey.length)
  bytes.set(codec, 0)
  bytes.set(publicKey, codec.length)
  return `z${base58.encode(bytes)}`
}

/**
 * Resolves a did:key to its key, purely (no network, §5.11.1 steps 2–4). Attacker-controlled input.
 *
 * @throws ProtocolError `invalid_did` with details.reason: `not_did_key`, `unsupported_multibase`
 *   (not `z`), `invalid_base58`, `non_canonical_base58`, `too_long`, `unsupported_multicodec`,
 *   `invalid_key_length`, `invalid_public_key` (off-curve, small-order or non-canonical key).
 *   Servers answer key_resolution_failed.
 */
export function parseDidKey(did: string): PublicKeyMaterial {
  if (typeof did !== 'string' || !did.startsWith(DID_KEY_PREFIX)) throw invalidDid('not a did:key', 'not_did_key')
  return decodeMultibaseKey(did.slice(DID_KEY_PREFIX.length))
}

/**
 * Decodes `z<base58btc(multicodec ‖ key)>` (the did:key method-specific id and `publicKeyMultibase`).
 *
 * @throws ProtocolError `invalid_did`, reasons as {@link parseDidKey}.
 */
export function decodeMultibaseKey(value: string): PublicKeyMaterial {
  if (value.length > MAX_MULTIBASE_LENGTH) throw invalidDid('multibase key is too long', 'too_long')
  if (!value.startsWith('z')) throw invalidDid('only base58btc ("z") multibase is supported', 'unsupported_multibase')
  const text = value.slice(1)
  let bytes: Uint8Array
  try {
    bytes = base58.decode(text)
  } catch (cause) {
    throw new ProtocolError('invalid_did', 'multibase key is not base58btc', {
      details: { reason: 'invalid_base58' },
      cause,
    })
  }
  // One key, one spelling: refuse anything that does not re-encode to itself.
  if (base58.encode(bytes) !== text)
    throw invalidDid('multibase key is not canonical base58btc', 'non_canonical_base58')
  let material: PublicKeyMaterial
  if (startsWith(bytes, ED25519_CODEC)) {
    material = { algorithm: 'ed25519', publicKey: bytes.subarray(2) }
    if (material.publicKey.length !== 32) throw invalidDid('ed25519-pub key must be 32 bytes', 'invalid_key_length')
  } else if (startsWith(bytes, P256_CODEC)) {
    material = { algorithm: 'ecdsa-p256', publicKey: bytes.subarray(2) }
    if (material.publicKey.length !== 33)
      throw invalidDid('p256-pub key must be a 33-byte compressed point', 'invalid_key_length')
  } else {
    throw invalidDid('multicodec prefix is not ed25519-pub (0xed01) or p256-pub (0x8024)', 'unsupported_multicodec', {
      prefix: Buffer.from(bytes.subarray(0, 2)).toString('hex'),
    })
  }
  try {
    return normalizePublicKey(material)
  } catch (error) {
    if (isProtocolError(error)) {
      throw new ProtocolError('invalid_did', `did:key carries an unusable key: ${error.message}`, {
        details: { reason: 'invalid_public_key', keyReason: error.details?.['reason'] },
        cause: error,
      })
    }
    throw error
  }
}

function startsWith(bytes: Uint8Array, prefix: Uint8Array): boolean {
  return bytes.length >= prefix.length && bytes[0] === prefix[0] && bytes[1] === prefix[1]
}
