/**
 * Ed25519 curve arithmetic on Node: OpenSSL through node:crypto, with imported keys cached. Only `ed25519.ts` calls
 * this, after its strictness rules; a browser bundle swaps in `ed25519-platform.browser.ts` (package.json
 * "browser" map), which exports the same functions.
 */
import { createPrivateKey, createPublicKey, type KeyObject, sign, verify } from 'node:crypto'
import { KeyObjectCache } from './key-object-cache.js'

const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex')
const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex')

/**
 * Imported public keys. Sized for a verifier that cycles through many signers: a log witness verifies every
 * enrolled registry's checkpoint key in turn, and an LRU smaller than that cycle would miss on every call.
 */
const publicKeys = new KeyObjectCache(4096)

/** OpenSSL's verdict on a 64-byte signature under a raw 32-byte key; false for a key OpenSSL will not import. */
export function verifySignature(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  const key = publicKeys.get(publicKey, importPublicKey)
  if (key === null) return false
  try {
    return verify(null, message, key, signature)
  } catch {
    return false
  }
}

/** {@link verifySignature} on libuv's thread pool; never rejects. */
export function verifySignatureOffThread(
  publicKey: Uint8Array,
  message: Uint8Array,
  signature: Uint8Array,
): Promise<boolean> {
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

/** RFC 8032 signature of `message` with a 32-byte seed (checked by the caller). */
export function signMessage(seed: Uint8Array, message: Uint8Array): Uint8Array {
  const signature = sign(null, message, importPrivateKey(seed))
  return new Uint8Array(signature.buffer, signature.byteOffset, signature.byteLength)
}

/** {@link signMessage} on libuv's thread pool; rejects only on an OpenSSL failure. */
export function signMessageOffThread(seed: Uint8Array, message: Uint8Array): Promise<Uint8Array> {
  const key = importPrivateKey(seed)
  return new Promise((resolve, reject) => {
    sign(null, message, key, (error, signature) => {
      if (error) reject(error)
      else resolve(new Uint8Array(signature.buffer, signature.byteOffset, signature.byteLength))
    })
  })
}

/** Raw public key of a 32-byte seed (checked by the caller). */
export function derivePublicKey(seed: Uint8Array): Uint8Array {
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
  const cached = privateKeys.get(seed)
  if (cached !== undefined && cached.bytes.equals(seed)) return cached.key
  const bytes = Buffer.from(seed)
  const key = createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, bytes]), format: 'der', type: 'pkcs8' })
  privateKeys.set(seed, { bytes, key })
  return key
}
