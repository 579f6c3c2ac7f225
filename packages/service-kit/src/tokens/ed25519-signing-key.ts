/**
 * A server's own Ed25519 token key, as both servers load it from a PKCS#8 PEM: the private half signs, the public
 * half verifies and is the one entry of the JWKS document served at GET /.well-known/jwks.json.
 *
 * The `kid` is the configured one, or else the key's RFC 7638 SHA-256 thumbprint, so an unconfigured kid is still
 * stable across restarts and identical on every instance holding the key.
 */
import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto'
import type { JWK } from 'jose'
import { loadJose } from '../jose-module.js'

export interface Ed25519SigningKey {
  privateKey: KeyObject
  publicKey: KeyObject
  kid: string
  /** Raw 32-byte public key, for the protocol library's strict Ed25519 checks. */
  rawPublicKey: Uint8Array
  /** The JWKS entry: the public JWK with `kid`, `alg: EdDSA`, `use: sig`. */
  jwk: JWK
}

/**
 * Loads the key of `privateKeyPem`; `configuredKid` is used when not empty.
 *
 * @throws the node:crypto error for a PEM that is not a private key (the servers' config checks run first).
 */
export async function loadEd25519SigningKey(privateKeyPem: string, configuredKid: string): Promise<Ed25519SigningKey> {
  const { calculateJwkThumbprint, exportJWK } = await loadJose()
  const privateKey = createPrivateKey({ key: privateKeyPem, format: 'pem' })
  const publicKey = createPublicKey(privateKey)
  const exported = await exportJWK(publicKey)
  const kid = configuredKid !== '' ? configuredKid : await calculateJwkThumbprint(exported, 'sha256')
  return {
    privateKey,
    publicKey,
    kid,
    rawPublicKey: new Uint8Array(Buffer.from(exported.x ?? '', 'base64url')),
    jwk: { ...exported, kid, alg: 'EdDSA', use: 'sig' },
  }
}

/** The protected header of a token this server signs: `{ alg, typ: 'JWT' }`, plus `kid` when there is one. */
export function tokenHeader(alg: string, kid: string | undefined): { alg: string; typ: 'JWT'; kid?: string } {
  return kid === undefined ? { alg, typ: 'JWT' } : { alg, typ: 'JWT', kid }
}
