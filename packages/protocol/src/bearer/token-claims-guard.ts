/**
 * Checks both services apply to a bearer JWT beyond what jose's `jwtVerify` enforces (RFC 7519 §4.1.5–4.1.6,
 * RFC 7515 §4.1.2–4.1.5, RFC 8725 §3.10):
 *
 * - `iat` and `nbf` no later than now plus the leeway. jose honours the leeway for `nbf` but accepts any future
 *   `iat`, and a token "issued" an hour ahead is either forged or from a clock nobody should trust.
 * - A `kid` that names a key we hold, or none at all when we hold no named key: an unknown `kid` is refused, not
 *   ignored, so a token can never steer which key a later change of configuration would pick.
 * - No header that points at or carries key material (`jku`, `x5u`, `jwk`, `x5c`): we verify only against keys we
 *   hold, so such a token was not minted by anyone we trust, and refusing it outright means the URL is never
 *   even looked at.
 */

/** Headers that name or embed a verification key outside our keys. */
const KEY_REFERENCE_HEADERS = ['jku', 'x5u', 'jwk', 'x5c'] as const

/** Why a token fails these checks; null when it passes. */
export type TokenGuardFault = 'key_reference_header' | 'unknown_kid' | 'issued_in_future' | 'not_yet_valid'

export interface TokenGuardInput {
  /** The protected header, as decoded (unverified). */
  header: Readonly<Record<string, unknown>>
  /** The claims, as decoded (unverified or verified). */
  claims: Readonly<Record<string, unknown>>
  /** The `kid` of the key the token is verified against; undefined when that key has no name. */
  expectedKid: string | undefined
  nowMs: number
  leewaySeconds: number
}

/** The first check the token fails, or null. Never throws. */
export function findTokenGuardFault(input: TokenGuardInput): TokenGuardFault | null {
  const { header, claims } = input
  if (KEY_REFERENCE_HEADERS.some((name) => Object.hasOwn(header, name))) return 'key_reference_header'
  const kid = header['kid']
  if (kid !== undefined && kid !== input.expectedKid) return 'unknown_kid'
  const latestSeconds = input.nowMs / 1000 + input.leewaySeconds
  const { iat, nbf } = claims
  if (typeof iat === 'number' && iat > latestSeconds) return 'issued_in_future'
  if (typeof nbf === 'number' && nbf > latestSeconds) return 'not_yet_valid'
  return null
}
