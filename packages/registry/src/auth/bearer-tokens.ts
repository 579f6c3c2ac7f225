/**
 * The registry's bearer JWTs (product spec "Authentication" 1–2): minted by POST /auth/token, checked on every
 * authenticated route. HS256 with `auth.jwt_secret` (the JWKS is empty: the key is symmetric) or EdDSA with
 * `auth.jwt_private_key_pem` (its Ed25519 public key is the JWKS).
 *
 * Verification pins the one configured algorithm, so `alg: none` and an HS256 token "signed" with the published
 * EdDSA public key are refused by construction; issuer, audience, `exp`, `sub` and `jti` are required, and `exp`,
 * `iat` and `nbf` all honour `auth.token_leeway_seconds` (an `iat` beyond it is refused). A `kid` other than ours
 * and any `jku`/`x5u`/`jwk`/`x5c` header are refused (protocol `findTokenGuardFault`). Every refusal is the same `not_authorized`, so an answer never says which check failed.
 */
import { createHmac, type KeyObject, webcrypto } from 'node:crypto'
import type { JWK } from 'jose'
import type { RegistryConfig } from '../core/config.js'
import { DEFAULT_TENANT, decodeStrictBase64, TENANT_ID_PATTERN } from '../core/config.js'
import { RegistryError } from '../core/errors.js'
import { loadEd25519SigningKey, loadJose, tokenHeader, VerifiedTokenCache, verifyJwt } from '@acdp/service-kit'

export interface TokenSigningKeys {
  alg: 'HS256' | 'EdDSA'
  /** Imported once (an HMAC CryptoKey for HS256): jose would otherwise import raw secret bytes on every call. */
  signingKey: KeyObject | webcrypto.CryptoKey
  verificationKey: KeyObject | webcrypto.CryptoKey
  /** HS256 only: the raw secret, for signing with node:crypto's synchronous HMAC (see `BearerTokens.issue`). */
  hmacSecret?: Uint8Array
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
    const key = await webcrypto.subtle.importKey('raw', secret, { name: 'HMAC', hash: 'SHA-256' }, false, [
      'sign',
      'verify',
    ])
    return {
      alg: 'HS256',
      signingKey: key,
      verificationKey: key,
      hmacSecret: secret,
      kid: undefined,
      jwks: { keys: [] },
    }
  }
  const { privateKey, publicKey, kid, jwk } = await loadEd25519SigningKey(auth.jwt_private_key_pem, auth.jwt_kid)
  return { alg: 'EdDSA', signingKey: privateKey, verificationKey: publicKey, kid, jwks: { keys: [jwk] } }
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
  /** The signed `tenant` claim (tenancy/tenancy.ts), present when the agent was tenant-bound at issuance. */
  tenant?: string
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

/** Verified tokens remembered (by their exact text) so a token used again skips the signature check. */
const VERIFIED_CACHE_MAX = 10_000

export class BearerTokens {
  readonly #s: BearerTokenSettings
  readonly #verified = new VerifiedTokenCache<VerifiedToken>(VERIFIED_CACHE_MAX)

  constructor(settings: BearerTokenSettings) {
    this.#s = settings
  }

  /** Mints a token for `subject`, who proved control of `keyId`; `tenant` becomes the signed `tenant` claim. */
  async issue(subject: string, keyId: string, tenant?: string): Promise<IssuedToken> {
    const s = this.#s
    const iat = Math.floor(s.clock().getTime() / 1000)
    const exp = iat + s.ttlSeconds
    const jti = Buffer.from(s.random(16)).toString('base64url')
    if (s.keys.hmacSecret !== undefined) {
      const token = this.#signHs256(subject, keyId, jti, iat, exp, s.keys.hmacSecret, tenant)
      return { token, jti, expiresAt: rfc3339(exp) }
    }
    const { SignJWT } = await loadJose()
    const token = await new SignJWT({
      acdp: { registry: s.audience, key_id: keyId },
      ...(tenant === undefined ? {} : { tenant }),
    })
      .setProtectedHeader(tokenHeader(s.keys.alg, s.keys.kid))
      .setIssuer(s.issuer)
      .setSubject(subject)
      .setAudience(s.audience)
      .setJti(jti)
      .setIssuedAt(iat)
      .setExpirationTime(exp)
      .sign(s.keys.signingKey)
    return { token, jti, expiresAt: rfc3339(exp) }
  }

  /**
   * The same compact JWS jose's SignJWT produces for HS256 (header `{alg, typ}`, the same claims), signed with
   * node:crypto's synchronous HMAC: WebCrypto's HMAC is an async job costing far more than the hash itself, and
   * issuance is a hot path (product target ≥ 1,000 tokens/s). Verification stays with jose.
   */
  #signHs256(
    subject: string,
    keyId: string,
    jti: string,
    iat: number,
    exp: number,
    secret: Uint8Array,
    tenant: string | undefined,
  ): string {
    const s = this.#s
    const header = Buffer.from(JSON.stringify({ alg: 'HS256', typ: 'JWT' })).toString('base64url')
    const claims = {
      acdp: { registry: s.audience, key_id: keyId },
      ...(tenant === undefined ? {} : { tenant }),
      iss: s.issuer,
      sub: subject,
      aud: s.audience,
      jti,
      iat,
      exp,
    }
    const payload = Buffer.from(JSON.stringify(claims)).toString('base64url')
    const signature = createHmac('sha256', secret).update(`${header}.${payload}`).digest('base64url')
    return `${header}.${payload}.${signature}`
  }

  /**
   * Verifies signature, algorithm, issuer, audience and lifetime.
   *
   * @throws RegistryError not_authorized for any token that is not one of this registry's live tokens.
   */
  async verify(token: string): Promise<VerifiedToken> {
    const s = this.#s
    // A remembered token is re-checked against `exp` (with the leeway) alone: the rest is fixed for its life.
    const remembered = this.#verified.lookup(token, s.clock().getTime())
    if (remembered !== undefined) {
      if (remembered.live) return remembered.value
      throw new RegistryError('not_authorized', 'The bearer token is not valid.')
    }
    try {
      const { claims, tenant } = await verifyJwt(token, s.keys.verificationKey, {
        algorithm: s.keys.alg,
        issuer: s.issuer,
        audience: s.audience,
        requiredClaims: ['sub', 'jti', 'exp', 'iat'],
        leewaySeconds: s.leewaySeconds,
        now: s.clock(),
        expectedKid: s.keys.kid,
        // This registry signs only well-formed, non-reserved tenants; anything else was not minted here.
        acceptsTenant: (claimed) => TENANT_ID_PATTERN.test(claimed) && claimed !== DEFAULT_TENANT,
      })
      const verified: VerifiedToken = {
        subject: claims.sub,
        jti: claims.jti,
        expiresAtMs: claims.exp * 1000,
        ...(tenant === undefined ? {} : { tenant }),
      }
      this.#verified.remember(token, verified, verified.expiresAtMs + s.leewaySeconds * 1000)
      return verified
    } catch (error) {
      throw new RegistryError('not_authorized', 'The bearer token is not valid.', { cause: error })
    }
  }
}

/** RFC 3339 with whole seconds (JWT times are seconds). */
function rfc3339(epochSeconds: number): string {
  return new Date(epochSeconds * 1000).toISOString().replace('.000Z', 'Z')
}
