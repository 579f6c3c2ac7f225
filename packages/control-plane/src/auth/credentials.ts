/**
 * Bearer credential checking as a small chain of verifiers (product spec "Authentication" rules 1–2).
 *
 * Each verifier owns one credential shape: API keys today, JWTs (issued by POST /auth/token or by a trusted
 * issuer) slot in later as another verifier. The first verifier that claims the shape decides alone, so a
 * credential that looks like a JWT and fails JWT verification never falls back to API-key matching.
 */

/** Who is calling, as established by a verifier. Never holds the credential itself. */
export interface Principal {
  /** How the caller authenticated. `development` = authentication bypassed (no key configured, not production). */
  kind: 'api_key' | 'jwt' | 'development'
  /** Stable, non-secret identifier for logs and throttles (a key digest prefix, a JWT subject). */
  actorId: string
  /** May call admin routes. */
  isAdmin: boolean
  /** Tenant bound to the credential (TENANT_API_KEYS entry, JWT tenant claim), if any. */
  boundTenant: string | undefined
  /** Whether an unbound credential may choose its tenant with X-Tenant-Id. */
  mayAssertTenant: boolean
  /** JWT subject (agent DID), for self-service routes. */
  subject?: string
  /** JWT identity (issuer, id, expiry in unix seconds), for revocation and introspection. */
  token?: { iss: string; jti: string; exp: number }
  /** Token of a TRUSTED_ISSUERS entry flagged read_only: only safe methods (and POST /auth/introspect). */
  readOnly?: boolean
}

/** One link of the chain. */
export interface CredentialVerifier {
  /** True when this verifier owns credentials of this shape; it then decides alone. */
  claims(credential: string): boolean
  /**
   * Checks the credential. Resolves to the principal, or `undefined` when it is not accepted (the caller answers
   * 401 without saying why).
   *
   * @param credential attacker-controlled: the bearer token exactly as sent.
   */
  verify(credential: string): Promise<Principal | undefined>
}

/** A compact JWS/JWT: three base64url segments separated by dots (RFC 7515 §7.1). */
export function looksLikeJwt(credential: string): boolean {
  return /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/.test(credential)
}

/** Runs the chain: the first verifier claiming the credential's shape decides. */
export async function verifyCredential(
  chain: readonly CredentialVerifier[],
  credential: string,
): Promise<Principal | undefined> {
  const owner = chain.find((verifier) => verifier.claims(credential))
  return owner === undefined ? undefined : owner.verify(credential)
}

/**
 * Extracts the credential of an `Authorization: Bearer <credential>` header (scheme case-insensitive).
 *
 * @param header attacker-controlled.
 * @returns the credential, or undefined when the header is absent or not a well-formed Bearer header.
 */
export function readBearerCredential(header: string | undefined): string | undefined {
  if (typeof header !== 'string') return undefined
  const match = /^Bearer[ ]+([\x21-\x7e]{1,4096})[ ]*$/i.exec(header)
  return match?.[1]
}
