/**
 * Ed25519 curve arithmetic on Node: OpenSSL through node:crypto, with imported keys cached. Only `ed25519.ts` calls
 * this, after its strictness rules; a browser bundle swaps in `ed25519-platform.browser.ts` (package.json
 * "browser" map), which exports the same functions.
 */
import { createPrivateKey, createPublicKey, type KeyObject, sign, verify } from 'node:crypto'
import { KeyObjectCache } from './key-object-cache.js'

const SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex')
const PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex')

const publicKeys = new KeyObjectCache(512)

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

function importPrivateKey(seed: Uint8Array): KeyObject {
  return createPrivateKey({ key: Buffer.concat([PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' })
}
