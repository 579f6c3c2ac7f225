/**
 * Fresh signing keys from the OS CSPRNG (RFC-ACDP-0001 §5.8 "Key generation"). Loading stored key
 * material is a different operation: pass the bytes to `signContentHash` directly.
 */
import { randomBytes } from 'node:crypto'
import { nobleP256 } from '../keys/noble-curves-platform.js'
import { ProtocolError } from '../errors.js'
import type { SignatureAlgorithm } from './algorithm.js'
import { p256PublicKeyFromPrivate } from './ecdsa-p256.js'
import { ed25519PublicKeyFromSeed } from './ed25519.js'

/** A freshly generated key pair. `publicKey` is raw Ed25519 (32 bytes) or compressed SEC1 P-256 (33 bytes). */
export type GeneratedSigningKey = {
  algorithm: SignatureAlgorithm
  privateKey: Uint8Array
  publicKey: Uint8Array
}

/**
 * Generates a key pair with `node:crypto` randomness: a 32-byte Ed25519 seed, or a uniformly random
 * P-256 scalar in [1, n − 1] (rejection-free reduction of 48 random bytes by the curve library).
 *
 * @throws ProtocolError `unsupported_algorithm` for any other algorithm.
 */
export function generateSigningKey(algorithm: SignatureAlgorithm): GeneratedSigningKey {
  if (algorithm === 'ed25519') {
    const privateKey = new Uint8Array(randomBytes(32))
    return { algorithm, privateKey, publicKey: ed25519PublicKeyFromSeed(privateKey) }
  }
  if (algorithm === 'ecdsa-p256') {
    const privateKey = nobleP256().utils.randomSecretKey(new Uint8Array(randomBytes(48)))
    return { algorithm, privateKey, publicKey: p256PublicKeyFromPrivate(privateKey, true) }
  }
  throw new ProtocolError('unsupported_algorithm', 'unsupported signature algorithm', {
    details: { algorithm: String(algorithm) },
  })
}
