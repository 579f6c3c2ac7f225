/**
 * The check both servers run on a bearer JWT against one key they hold (product spec "Authentication" 2):
 * signature under exactly one algorithm (so `alg: none` and alg confusion fail by construction), issuer, audience,
 * `exp`/`nbf` within the leeway, the required claims present, then the protocol's guard (`findTokenGuardFault`:
 * no `iat`/`nbf` beyond the leeway, no `kid` other than the key's, no `jku`/`x5u`/`jwk`/`x5c` header), `sub`,
 * `jti` and `exp` of the right types and a `tenant` claim, when present, one the server would sign.
 *
 * Any failure throws: each server turns every refusal into its own single answer (the registry's
 * `not_authorized`, the control plane's "no principal"), so a caller is never told which check failed.
 */
import { findTokenGuardFault } from '@acdp/protocol'
import type { JWTPayload, ProtectedHeaderParameters } from 'jose'
import { loadJose } from '../jose-module.js'

/** What jose verifies with: a KeyObject, a CryptoKey or HMAC secret bytes. */
export type JwtVerificationKey = Parameters<typeof import('jose').jwtVerify>[1]

export interface JwtCheck {
  /** The one algorithm the key is used with. */
  algorithm: string
  issuer: string
  audience: string
  /** Claims that must be present (jose `requiredClaims`), beyond `iss`/`aud` which are always checked. */
  requiredClaims: readonly string[]
  /** Clock tolerance for `exp`, `nbf` and `iat`, in seconds. */
  leewaySeconds: number
  now: Date
  /** The `kid` of `key`; undefined when the key has no name (then a token naming any kid is refused). */
  expectedKid: string | undefined
  /** Whether a present `tenant` claim is one this server signs; a token with any other is refused. */
  acceptsTenant: (tenant: string) => boolean
}

export interface CheckedJwt {
  claims: JWTPayload & { sub: string; jti: string; exp: number }
  header: ProtectedHeaderParameters
  /** The signed `tenant` claim, when present. */
  tenant: string | undefined
}

/** Refusal reasons, in the thrown Error's message; for logs and tests only, never for an answer. */
export class JwtRefusal extends Error {
  override readonly name = 'JwtRefusal'
}

/**
 * Verifies `token` under `key`.
 *
 * @throws jose's error for a bad signature, algorithm, issuer, audience, lifetime or missing claim; JwtRefusal for
 *   the guard, claim type and tenant checks.
 */
export async function verifyJwt(token: string, key: JwtVerificationKey, check: JwtCheck): Promise<CheckedJwt> {
  const { jwtVerify } = await loadJose()
  const { payload, protectedHeader } = await jwtVerify(token, key, {
    algorithms: [check.algorithm],
    issuer: check.issuer,
    audience: check.audience,
    clockTolerance: check.leewaySeconds,
    currentDate: check.now,
    requiredClaims: [...check.requiredClaims],
  })
  const fault = findTokenGuardFault({
    header: protectedHeader,
    claims: payload,
    expectedKid: check.expectedKid,
    nowMs: check.now.getTime(),
    leewaySeconds: check.leewaySeconds,
  })
  if (fault !== null) throw new JwtRefusal(fault)
  const { sub, jti, exp } = payload
  if (typeof sub !== 'string' || typeof jti !== 'string' || typeof exp !== 'number') throw new JwtRefusal('claims')
  const tenant = payload['tenant']
  if (tenant !== undefined && (typeof tenant !== 'string' || !check.acceptsTenant(tenant))) {
    throw new JwtRefusal('tenant claim')
  }
  return { claims: payload as CheckedJwt['claims'], header: protectedHeader, tenant }
}
