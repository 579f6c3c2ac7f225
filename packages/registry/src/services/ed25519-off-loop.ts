/**
 * Strict Ed25519 verification of producer signatures (RFC-ACDP-0001 §5.8) with the curve arithmetic on libuv's
 * thread pool instead of the event loop.
 *
 * A publish spends ≈ 0.13 ms in OpenSSL's Ed25519 verify, about a quarter of its event-loop time
 * (docs/performance.md "## Registry"); with a callback, `crypto.verify` runs that step on a pool thread, so the
 * loop serves other requests meanwhile and a second core can share the work. Nothing else changes: the input
 * checks are @acdp/protocol `verifyContentSignature`'s, in its order and with its errors, and the strictness
 * rules are @acdp/protocol `findEd25519Weakness`, applied before OpenSSL exactly as `verifyEd25519` does.
 */
import { createPublicKey, type KeyObject, verify } from 'node:crypto'
import {
  decodeBase64Strict,
  findEd25519Weakness,
  isSha256String,
  ProtocolError,
  SIGNATURE_BASE64_LENGTH,
  SIGNATURE_LENGTH,
} from '@acdp/protocol'

/** DER SubjectPublicKeyInfo header of an Ed25519 key (RFC 8410); the 32 raw key bytes follow it. */
const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex')
/** Imported keys kept: importing costs about as much as a verify, and producers sign again and again. */
const KEY_CACHE_SIZE = 512
const importedKeys = new Map<string, KeyObject>()

/**
 * Verifies an Ed25519 `signature` (padded base64, attacker-controlled) over the ASCII bytes of `contentHash`
 * under a raw 32-byte `publicKey`. Resolves false for a well-formed signature that does not verify, including
 * every strictness refusal (small-order or non-canonical points, S ≥ L).
 *
 * @throws ProtocolError `invalid_hash_format` (malformed content_hash), `invalid_signature_encoding` (not 88
 *   characters of canonical base64 for 64 bytes), `invalid_public_key` (not 32 bytes) — synchronously, as
 *   `verifyContentSignature` does.
 */
export function verifyEd25519ContentSignature(
  publicKey: Uint8Array,
  contentHash: string,
  signature: string,
): Promise<boolean> {
  if (!isSha256String(contentHash)) {
    throw new ProtocolError(
      'invalid_hash_format',
      'content_hash must be "sha256:" followed by 64 lowercase hex characters',
    )
  }
  if (typeof signature !== 'string' || signature.length !== SIGNATURE_BASE64_LENGTH) {
    throw new ProtocolError(
      'invalid_signature_encoding',
      `signature value must be ${SIGNATURE_BASE64_LENGTH} base64 characters`,
      { details: { reason: 'invalid_length', length: typeof signature === 'string' ? signature.length : null } },
    )
  }
  const bytes = decodeBase64Strict(signature)
  if (bytes.length !== SIGNATURE_LENGTH) {
    throw new ProtocolError('invalid_signature_encoding', `signature must be ${SIGNATURE_LENGTH} bytes`, {
      details: { reason: 'invalid_length', length: bytes.length },
    })
  }
  if (!(publicKey instanceof Uint8Array) || publicKey.length !== 32) {
    throw new ProtocolError('invalid_public_key', 'public key length does not fit ed25519', {
      details: { reason: 'invalid_length', algorithm: 'ed25519' },
    })
  }
  if (findEd25519Weakness(publicKey, bytes) !== null) return Promise.resolve(false)
  const key = importPublicKey(publicKey)
  if (key === null) return Promise.resolve(false)
  const message = Buffer.from(contentHash, 'latin1')
  return new Promise((resolve) => {
    try {
      verify(null, message, key, bytes, (error, valid) => resolve(error === null && valid))
    } catch {
      resolve(false)
    }
  })
}

/** The imported key for `raw`, from a small LRU; null when OpenSSL refuses the bytes. */
function importPublicKey(raw: Uint8Array): KeyObject | null {
  const id = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('base64')
  const cached = importedKeys.get(id)
  if (cached !== undefined) {
    importedKeys.delete(id)
    importedKeys.set(id, cached)
    return cached
  }
  let key: KeyObject
  try {
    key = createPublicKey({ key: Buffer.concat([SPKI_PREFIX, raw]), format: 'der', type: 'spki' })
  } catch {
    return null
  }
  if (importedKeys.size >= KEY_CACHE_SIZE) {
    const oldest = importedKeys.keys().next().value
    if (oldest !== undefined) importedKeys.delete(oldest)
  }
  importedKeys.set(id, key)
  return key
}
