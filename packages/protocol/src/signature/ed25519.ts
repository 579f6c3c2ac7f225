/**
 * Strict Ed25519 (RFC 8032 §5.1) for producer signatures, receipts and cosignatures.
 *
 * Verification runs the byte-level strictness rules below first, then OpenSSL through
 * `node:crypto`. The rules do not depend on the OpenSSL build: Node 20's OpenSSL accepted the
 * identity-key forgery (A = R = identity, S = 0 verifies every message), and a verifier must
 * refuse it no matter which OpenSSL it links.
 */
import { createPrivateKey, createPublicKey, type KeyObject, sign, verify } from 'node:crypto'
import { isNonCanonicalY, isSmallOrderEncoding } from './ed25519-small-order.js'
import { KeyObjectCache } from './key-object-cache.js'

/** Group order L = 2²⁵² + 27742317777372353535851937790883648493, little-endian. */
const L_BYTES = littleEndian(2n ** 252n + 27742317777372353535851937790883648493n)

const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex')
const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex')

const publicKeys = new KeyObjectCache(512)

/** Why a (public key, signature) pair is refused before any curve arithmetic. */
export type Ed25519Weakness =
  | 'invalid_public_key_length'
  | 'invalid_signature_length'
  | 'non_canonical_public_key'
  | 'small_order_public_key'
  | 'non_canonical_r'
  | 'small_order_r'
  | 'non_canonical_s'

/**
 * The strictness rules, as a pure function (no OpenSSL): returns the first rule the pair breaks,
 * or null. Rules: A and R must not encode a small-order point in any spelling (14 encodings, see
 * `ed25519-small-order.ts`), A and R must encode y < p, and S must be < L (RFC 8032 §5.1.7 step 1;
 * this also refuses the S + L malleated twin of a valid signature).
 */
export function findEd25519Weakness(publicKey: Uint8Array, signature: Uint8Array): Ed25519Weakness | null {
  if (publicKey.length !== 32) return 'invalid_public_key_length'
  if (signature.length !== 64) return 'invalid_signature_length'
  if (isSmallOrderEncoding(publicKey)) return 'small_order_public_key'
  if (isNonCanonicalY(publicKey)) return 'non_canonical_public_key'
  if (isSmallOrderEncoding(signature, 0)) return 'small_order_r'
  if (isNonCanonicalY(signature, 0)) return 'non_canonical_r'
  if (!isScalarBelowL(signature)) return 'non_canonical_s'
  return null
}

/**
 * Strict Ed25519 verification of `signature` (R ‖ S, 64 bytes) over `message` under a raw 32-byte
 * public key. Returns false for any malformed input, any {@link findEd25519Weakness} finding, and
 * any signature OpenSSL does not accept. Never throws for bad data.
 */
export function verifyEd25519(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  if (findEd25519Weakness(publicKey, signature) !== null) return false
  const key = publicKeys.get(publicKey, importPublicKey)
  if (key === null) return false
  try {
    return verify(null, message, key, signature)
  } catch {
    return false
  }
}

/**
 * {@link verifyEd25519} with the curve arithmetic on libuv's thread pool instead of the caller's thread: the
 * same strictness rules run first, synchronously, then OpenSSL verifies on a pool thread, so a server keeps
 * serving other requests meanwhile and a second core can share the work. Resolves false where
 * {@link verifyEd25519} returns false; never rejects.
 */
export function verifyEd25519Async(
  publicKey: Uint8Array,
  message: Uint8Array,
  signature: Uint8Array,
): Promise<boolean> {
  if (findEd25519Weakness(publicKey, signature) !== null) return Promise.resolve(false)
  const key = publicKeys.get(publicKey, importPublicKey)
  if (key === null) return Promise.resolve(false)
  return new Promise((resolve) => {
    try {
      verify(null, message, key, signature, (error, valid) => resolve(error === null && valid))
    } catch {
      resolve(false)
    }
  })
}

/**
 * Deterministic Ed25519 signature (RFC 8032) of `message` with a 32-byte private seed.
 *
 * @throws TypeError when `seed` is not 32 bytes (caller misuse).
 */
export function signEd25519(seed: Uint8Array, message: Uint8Array): Uint8Array {
  const signature = sign(null, message, importPrivateKey(seed))
  return new Uint8Array(signature.buffer, signature.byteOffset, signature.byteLength)
}

/**
 * {@link signEd25519} on libuv's thread pool instead of the caller's thread (a registry signs a receipt per
 * publish; this keeps that work off its event loop). Same bytes as the synchronous signer.
 *
 * @throws TypeError synchronously when `seed` is not 32 bytes (caller misuse); rejects only on an OpenSSL failure.
 */
export function signEd25519Async(seed: Uint8Array, message: Uint8Array): Promise<Uint8Array> {
  const key = importPrivateKey(seed)
  return new Promise((resolve, reject) => {
    sign(null, message, key, (error, signature) => {
      if (error) reject(error)
      else resolve(new Uint8Array(signature.buffer, signature.byteOffset, signature.byteLength))
    })
  })
}

/**
 * Raw 32-byte public key of a 32-byte Ed25519 seed.
 *
 * @throws TypeError when `seed` is not 32 bytes (caller misuse).
 */
export function ed25519PublicKeyFromSeed(seed: Uint8Array): Uint8Array {
  const spki = createPublicKey(importPrivateKey(seed)).export({ format: 'der', type: 'spki' })
  return new Uint8Array(spki.subarray(SPKI_PREFIX.length))
}

function importPublicKey(raw: Uint8Array): KeyObject | null {
  try {
    return createPublicKey({ key: Buffer.concat([SPKI_PREFIX, raw]), format: 'der', type: 'spki' })
  } catch {
    return null
  }
}

/**
 * Imported private keys by seed array. Importing costs about as much as signing, and a signer (a registry's
 * receipt key) signs with the same long-lived array on every publish. Keyed by identity, guarded by content:
 * an entry is used only while the array still holds the bytes it was imported from.
 */
const privateKeys = new WeakMap<Uint8Array, { bytes: Buffer; key: KeyObject }>()

function importPrivateKey(seed: Uint8Array): KeyObject {
  if (!(seed instanceof Uint8Array) || seed.length !== 32) throw new TypeError('an Ed25519 seed is 32 bytes')
  const cached = privateKeys.get(seed)
  if (cached !== undefined && cached.bytes.equals(seed)) return cached.key
  const bytes = Buffer.from(seed)
  const key = createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, bytes]), format: 'der', type: 'pkcs8' })
  privateKeys.set(seed, { bytes, key })
  return key
}

/** S (signature bytes 32..63, little-endian) < L, compared from the most significant byte. */
function isScalarBelowL(signature: Uint8Array): boolean {
  for (let i = 31; i >= 0; i--) {
    const s = signature[32 + i] as number
    const l = L_BYTES[i] as number
    if (s !== l) return s < l
  }
  return false
}

function littleEndian(value: bigint): Uint8Array {
  const bytes = new Uint8Array(32)
  let rest = value
  for (let i = 0; i < 32; i++) {
    bytes[i] = Number(rest & 0xffn)
    rest >>= 8n
  }
  return bytes
}
