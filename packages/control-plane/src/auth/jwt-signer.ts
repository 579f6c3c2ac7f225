/**
 * This service's own token key (JWT_SIGNING_ALG): HS256 with JWT_SECRET, or EdDSA with the Ed25519 key in
 * JWT_PRIVATE_KEY_PEM, whose public half is published at GET /.well-known/jwks.json.
 */
import type { KeyObject } from 'node:crypto'
import type { JWK, JWTPayload } from 'jose'
import type { TokenConfig } from './token-settings.js'
import { loadEd25519SigningKey, loadJose, tokenHeader } from '@acdp/service-kit'

export interface JwtSigner {
  readonly algorithm: 'HS256' | 'EdDSA'
  readonly kid: string | undefined
  /** Key that verifies tokens of this issuer. */
  readonly verificationKey: KeyObject | Uint8Array
  /** Raw 32-byte Ed25519 public key (EdDSA) for the strict-verification pre-check; undefined under HS256. */
  readonly rawPublicKey: Uint8Array | undefined
  sign(claims: JWTPayload): Promise<string>
  /** The JWKS document: `{ keys: [] }` under HS256 (a shared secret is never published). */
  jwks(): { keys: JWK[] }
}

/** Builds the signer, or undefined when no key is configured (jose is loaded only when one is). */
export async function createJwtSigner(tokens: TokenConfig): Promise<JwtSigner | undefined> {
  if (tokens.signingAlg === 'HS256') {
    if (tokens.secret === '') return undefined
    const { SignJWT } = await loadJose()
    const secret = new TextEncoder().encode(tokens.secret)
    const kid = tokens.kid === '' ? undefined : tokens.kid
    return {
      algorithm: 'HS256',
      kid,
      verificationKey: secret,
      rawPublicKey: undefined,
      sign: (claims) => new SignJWT(claims).setProtectedHeader(tokenHeader('HS256', kid)).sign(secret),
      jwks: () => ({ keys: [] }),
    }
  }
  if (tokens.privateKeyPem === '') return undefined
  const { SignJWT } = await loadJose()
  const key = await loadEd25519SigningKey(tokens.privateKeyPem, tokens.kid)
  return {
    algorithm: 'EdDSA',
    kid: key.kid,
    verificationKey: key.publicKey,
    rawPublicKey: key.rawPublicKey,
    sign: (claims) => new SignJWT(claims).setProtectedHeader(tokenHeader('EdDSA', key.kid)).sign(key.privateKey),
    jwks: () => ({ keys: [key.jwk] }),
  }
}
