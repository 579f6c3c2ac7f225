/**
 * JWT bearer credentials (product spec "Authentication" rule 2): tokens minted by POST /auth/token and tokens of
 * TRUSTED_ISSUERS. The issuer named in the (unverified) payload only selects which key and which single algorithm
 * to try; nothing else is read before the signature verifies.
 *
 * Refused: `alg: none` and any algorithm other than the issuer's (alg confusion: an HS256 token "signed" with an
 * EdDSA public key never reaches a key of the wrong type), expired or not-yet-valid tokens and an `iat` in the
 * future (no clock tolerance), a `kid` naming no key we hold, any `jku`/`x5u`/`jwk`/`x5c` header (never followed),
 * a wrong audience, a missing `sub`/`jti`/`exp`, a malformed `tenant` claim, missing required scopes, and revoked
 * tokens. EdDSA signatures also pass the protocol library's strict Ed25519 checks (small-order and non-canonical
 * encodings) before jose verifies them.
 */
import { findEd25519Weakness } from '@acdp/protocol'
import type { JWTPayload } from 'jose'
import { TENANT_ID_PATTERN } from '../core/config.js'
import type { RevocationList } from './revocation-list.js'
import { type CredentialVerifier, looksLikeJwt, type Principal } from './credentials.js'
import type { JwksCache } from './jwks-cache.js'
import type { JwtSigner } from './jwt-signer.js'
import type { TokenConfig, TrustedIssuer } from './token-settings.js'
import { type JwtVerificationKey, loadJose, VerifiedTokenCache, verifyJwt } from '@acdp/service-kit'

/** A token whose signature and claims verified. */
export interface VerifiedJwt {
  claims: JWTPayload & { sub: string; jti: string; exp: number; iss: string }
  /** The TRUSTED_ISSUERS entry, or undefined for this service's own tokens. */
  trustedIssuer: TrustedIssuer | undefined
  tenant: string | undefined
  scopes: string[]
}

export interface JwtVerifier extends CredentialVerifier {
  /**
   * Verifies a token without consulting the deny list. `allowExpired` skips the time checks (revocation of an
   * expired token). Undefined for anything that does not verify. Never throws.
   */
  inspect(token: string, options?: { allowExpired?: boolean }): Promise<VerifiedJwt | undefined>
}

const TEN_YEARS_SECONDS = 10 * 365 * 86_400
const CACHE_TTL_MS = 60_000
const CACHE_MAX_ENTRIES = 10_000

export interface JwtVerifierOptions {
  tokens: TokenConfig
  signer: JwtSigner | undefined
  jwks: JwksCache
  revocations: RevocationList
  clock: () => Date
}

export function createJwtVerifier(options: JwtVerifierOptions): JwtVerifier {
  const { tokens, signer, jwks, revocations, clock } = options
  const trusted = new Map(tokens.trustedIssuers.map((issuer) => [issuer.issuer, issuer]))

  const inspect: JwtVerifier['inspect'] = async (token, inspectOptions = {}) => {
    try {
      const { decodeJwt, decodeProtectedHeader } = await loadJose()
      const header = decodeProtectedHeader(token)
      const unverified = decodeJwt(token)
      if (typeof unverified.iss !== 'string') return undefined
      const own = unverified.iss === tokens.authority
      const issuer = own ? undefined : trusted.get(unverified.iss)
      if (!own && issuer === undefined) return undefined
      const algorithm = own ? signer?.algorithm : issuer?.algorithm
      if (algorithm === undefined || header.alg !== algorithm) return undefined

      let key: JwtVerificationKey
      let rawEd25519: Uint8Array | undefined
      // The name of the key we verify with: a token naming another is refused (findTokenGuardFault).
      let expectedKid: string | undefined
      if (own) {
        if (signer === undefined) return undefined
        key = signer.verificationKey
        rawEd25519 = signer.rawPublicKey
        expectedKid = signer.kid
      } else if (issuer?.algorithm === 'HS256') {
        key = new TextEncoder().encode(issuer.secret)
        expectedKid = undefined
      } else {
        const found = await jwks.find(issuer?.jwksUrl ?? '', header.kid)
        if (found === undefined) return undefined
        key = found.key
        rawEd25519 = found.raw
        expectedKid = header.kid
      }
      if (algorithm === 'EdDSA') {
        const signature = Buffer.from(token.slice(token.lastIndexOf('.') + 1), 'base64url')
        if (rawEd25519 === undefined || findEd25519Weakness(rawEd25519, new Uint8Array(signature)) !== null) {
          return undefined
        }
      }
      // Revoking an expired token: the signature must still verify, the time checks are waived.
      const tolerance = inspectOptions.allowExpired === true ? TEN_YEARS_SECONDS : 0
      const { claims: payload, tenant } = await verifyJwt(token, key, {
        algorithm,
        issuer: unverified.iss,
        audience: own ? tokens.audience : (issuer?.audience ?? ''),
        requiredClaims: ['sub', 'jti', 'exp'],
        leewaySeconds: tolerance,
        now: clock(),
        expectedKid,
        acceptsTenant: (claimed) => TENANT_ID_PATTERN.test(claimed),
      })
      const scopes = readScopes(payload)
      if (issuer !== undefined && !issuer.requiredScopes.every((scope) => scopes.includes(scope))) return undefined
      return {
        claims: payload as VerifiedJwt['claims'],
        trustedIssuer: issuer,
        tenant,
        scopes,
      }
    } catch {
      return undefined
    }
  }

  // Verified tokens, by their exact text, for at most CACHE_TTL_MS and never past their expiry: repeated requests
  // with one token skip the signature and claim parsing (about 140 µs). Revocation is still checked every time.
  const cache = new VerifiedTokenCache<Principal>(CACHE_MAX_ENTRIES)

  return {
    claims: looksLikeJwt,
    inspect,
    async verify(credential): Promise<Principal | undefined> {
      const now = clock().getTime()
      const cached = cache.lookup(credential, now)
      if (cached?.live === true) {
        const token = cached.value.token
        return token !== undefined && revocations.has(token.iss, token.jti) ? undefined : cached.value
      }
      const verified = await inspect(credential)
      if (verified === undefined) return undefined
      const { claims } = verified
      if (revocations.has(claims.iss, claims.jti)) return undefined
      const principal = toPrincipal(verified)
      cache.remember(credential, principal, Math.min(now + CACHE_TTL_MS, claims.exp * 1000))
      return principal
    },
  }

  function toPrincipal(verified: VerifiedJwt): Principal {
    const { claims } = verified
    // Frozen: one cached principal serves many requests.
    return Object.freeze({
      kind: 'jwt',
      actorId: `jwt:${claims.sub}`,
      // A token never reaches admin routes: admin rights belong to AUTH_ADMIN_API_KEYS only.
      isAdmin: false,
      boundTenant: verified.tenant,
      mayAssertTenant: tokens.tenantHeaderTrust === 'any_peer',
      subject: claims.sub,
      token: { iss: claims.iss, jti: claims.jti, exp: claims.exp },
      readOnly: verified.trustedIssuer?.readOnly === true,
    })
  }
}

/** Scopes from `scope` (space-separated), `scopes` or `scp` (string or array). */
function readScopes(payload: JWTPayload): string[] {
  const result: string[] = []
  for (const name of ['scope', 'scopes', 'scp']) {
    const value = payload[name]
    if (typeof value === 'string') result.push(...value.split(' ').filter((scope) => scope !== ''))
    else if (Array.isArray(value)) result.push(...value.filter((scope): scope is string => typeof scope === 'string'))
  }
  return result
}
