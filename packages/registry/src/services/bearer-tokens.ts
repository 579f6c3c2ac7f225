/**
 * The registry's bearer JWTs (product spec "Authentication" 1–2): minted by POST /auth/token, checked on every
 * authenticated route. HS256 with `auth.jwt_secret` (the JWKS is empty: the key is symmetric) or EdDSA with
 * `auth.jwt_private_key_pem` (its Ed25519 public key is the JWKS).
 *
 * Verification pins the one configured algorithm, so `alg: none` and an HS256 token "signed" with the published
 * EdDSA public key are refused by construction; issuer, audience, `exp` (with `auth.token_leeway_seconds`), `sub`
 * and `jti` are required. Every refusal is the same `not_authorized`, so an answer never says which check failed.
 */
import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto'
import { calculateJwkThumbprint, exportJWK, type JWK, jwtVerify, SignJWT } from 'jose'
import type { RegistryConfig } from '../config.js'
import { decodeStrictBase64 } from '../config.js'
import { RegistryError } from '../errors.js'

export interface TokenSigningKeys {
  alg: 'HS256' | 'EdDSA'
  signingKey: KeyObject | Uint8Array
  verificationKey: KeyObject | Uint8Array
  /** `kid` header of issued tokens (EdDSA only). */
  kid: string | undefined
  /** The JWKS document served at /.well-known/jwks.json. */
  jwks: { keys: JWK[] }
}

/**
 * The signing material of the configuration. An HS256 registry without a secret (only with
 * `auth.allow_ephemeral_secret`) draws a per-process one from `random`: its tokens die with the process and are
 * not accepted by other instances.
 */
export async function loadTokenSigningKeys(
  auth: RegistryConfig['auth'],
  random: (size: number) => Uint8Array,
): Promise<TokenSigningKeys> {
  if (auth.jwt_signing_alg === 'HS256') {
    const secret = auth.jwt_secret === '' ? random(32) : new Uint8Array(decodeStrictBase64(auth.jwt_secret) ?? [])
    return { alg: 'HS256', signingKey: secret, verificationKey: secret, kid: undefined, jwks: { keys: [] } }
  }
  const privateKey = createPrivateKey({ key: auth.jwt_private_key_pem, format: 'pem' })
  const publicKey = createPublicKey(privateKey)
  const jwk = await exportJWK(publicKey)
  const kid = auth.jwt_kid !== '' ? auth.jwt_kid : await calculateJwkThumbprint(jwk, 'sha256')
  return {
    alg: 'EdDSA',
    signingKey: privateKey,
    verificationKey: publicKey,
    kid,
    jwks: { keys: [{ ...jwk, kid, alg: 'EdDSA', use: 'sig' }] },
  }
}

export interface BearerTokenSettings {
  keys: TokenSigningKeys
  /** `iss`: the registry DID. */
  issuer: string
  /** `aud`: the registry authority. */
  audience: string
  ttlSeconds: number
  leewaySeconds: number
  clock: () => Date
  random: (size: number) => Uint8Array
}

/** What a verified token says. */
export interface VerifiedToken {
  /** The agent DID the token was issued to. */
  subject: string
  jti: string
  /** `exp` in epoch ms. */
  expiresAtMs: number
}

export interface IssuedToken {
  token: string
  jti: string
  /** RFC 3339, whole seconds (JWT times are seconds). */
  expiresAt: string
}

export class BearerTokens {
  readonly #s: BearerTokenSettings

  constructor(settings: BearerTokenSettings) {
    this.#s = settings
  }

  /** Mints a token for `subject`, who proved control of `keyId`. */
  async issue(subject: string, keyId: string): Promise<IssuedToken> {
    const s = this.#s
    const iat = Math.floor(s.clock().getTime() / 1000)
    const exp = iat + s.ttlSeconds
    const jti = Buffer.from(s.random(16)).toString('base64url')
    const token = await new SignJWT({ acdp: { registry: s.audience, key_id: keyId } })
      .setProtectedHeader({ alg: s.keys.alg, typ: 'JWT', ...(s.keys.kid ? { kid: s.keys.kid } : {}) })
      .setIssuer(s.issuer)
      .setSubject(subject)
      .setAudience(s.audience)
      .setJti(jti)
      .setIssuedAt(iat)
      .setExpirationTime(exp)
      .sign(s.keys.signingKey)
    return { token, jti, expiresAt: new Date(exp * 1000).toISOString().replace('.000Z', 'Z') }
  }

  /**
   * Verifies signature, algorithm, issuer, audience and lifetime.
   *
   * @throws RegistryError not_authorized for any token that is not one of this registry's live tokens.
   */
  async verify(token: string): Promise<VerifiedToken> {
    const s = this.#s
    try {
      const { payload } = await jwtVerify(token, s.keys.verificationKey, {
        algorithms: [s.keys.alg],
        issuer: s.issuer,
        audience: s.audience,
        clockTolerance: s.leewaySeconds,
        currentDate: s.clock(),
        requiredClaims: ['sub', 'jti', 'exp', 'iat'],
      })
      const { sub, jti, exp } = payload
      if (typeof sub !== 'string' || typeof jti !== 'string' || typeof exp !== 'number') throw new TypeError('claims')
      return { subject: sub, jti, expiresAtMs: exp * 1000 }
    } catch (error) {
      throw new RegistryError('not_authorized', 'The bearer token is not valid.', { cause: error })
    }
  }
}
