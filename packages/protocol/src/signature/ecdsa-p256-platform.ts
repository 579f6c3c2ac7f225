/**
 * ECDSA P-256 verification on Node: OpenSSL through node:crypto, with imported keys cached. Only `ecdsa-p256.ts`
 * calls this, after its scalar range checks; a browser bundle swaps in `ecdsa-p256-platform.browser.ts`
 * (package.json "browser" map), which exports the same function.
 */
import { createPublicKey, type KeyObject, verify } from 'node:crypto'
import { decompressP256PublicKey } from '../keys/p256-point.js'
import { KeyObjectCache } from './key-object-cache.js'

const SPKI_PREFIX = Buffer.from('3059301306072a8648ce3d020106082a8648ce3d030107034200', 'hex')

const publicKeys = new KeyObjectCache(512)

/** OpenSSL's verdict on an IEEE 1363 r ‖ s signature over SHA-256(`message`); false for an invalid key. */
export function verifyP1363Signature(publicKey: Uint8Array, message: Uint8Array, signature: Uint8Array): boolean {
  const key = publicKeys.get(publicKey, importPublicKey)
  if (key === null) return false
  try {
    return verify('sha256', message, { key, dsaEncoding: 'ieee-p1363' }, signature)
  } catch {
    return false
  }
}

function importPublicKey(raw: Uint8Array): KeyObject | null {
  try {
    // Validates the point (on curve, not infinity) and yields the uncompressed SPKI form.
    const uncompressed = decompressP256PublicKey(raw)
    return createPublicKey({ key: Buffer.concat([SPKI_PREFIX, uncompressed]), format: 'der', type: 'spki' })
  } catch {
    return null
  }
}
