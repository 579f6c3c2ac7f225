/**
 * POST /auth/token/revoke (product spec "Authentication" 5): a token's holder revokes it, or an admin revokes
 * any token. The revocation is stored (shared by every instance on the database) until the token would have
 * expired anyway.
 *
 * Self revocation covers the presented bearer, or another token of the same agent given in `token`. Admins
 * (`auth.admin_tokens`) may name a token by `token` or by `jti` alone; a bare `jti`'s expiry is unknown, so
 * its record is kept for the longest lifetime a token of this registry can have.
 */
import type { TokenRevokeReason } from '@acdp/protocol'
import { RegistryError } from '../core/errors.js'
import type { AuthStore } from './auth-store.js'
import type { BearerTokens, VerifiedToken } from './bearer-tokens.js'

export interface RevokeRequest {
  jti?: string
  token?: string
  reason?: TokenRevokeReason
}

export interface TokenRevocationDeps {
  store: AuthStore
  tokens: BearerTokens
  clock: () => Date
  /** `auth.token_ttl_seconds` + `auth.token_leeway_seconds`: how long any token of this registry stays valid. */
  maxTokenLifetimeSeconds: number
}

/**
 * Records the revocation. `caller` is the verified bearer of a non-admin caller, or `'admin'`.
 *
 * @throws RegistryError not_authorized (not the caller's token, invalid `token`), schema_violation (admin
 *   request naming no token).
 */
export async function revokeToken(
  deps: TokenRevocationDeps,
  caller: VerifiedToken | 'admin',
  request: RevokeRequest,
): Promise<{ jti: string }> {
  const nowMs = deps.clock().getTime()
  let target: { jti: string; subject: string; expiresAtMs: number }
  if (request.token !== undefined) {
    const named = await deps.tokens.verify(request.token)
    if (caller !== 'admin' && named.subject !== caller.subject) throw notYours()
    if (request.jti !== undefined && request.jti !== named.jti) {
      throw new RegistryError('schema_violation', 'jti and token name different tokens.')
    }
    target = named
  } else if (caller === 'admin') {
    if (request.jti === undefined) {
      throw new RegistryError('schema_violation', 'Name the token to revoke with jti or token.')
    }
    target = { jti: request.jti, subject: '', expiresAtMs: nowMs + deps.maxTokenLifetimeSeconds * 1000 }
  } else {
    if (request.jti !== undefined && request.jti !== caller.jti) throw notYours()
    target = caller
  }
  await deps.store.revokeToken({
    jti: target.jti,
    subject: target.subject,
    reason: request.reason ?? (caller === 'admin' ? 'admin_revoke' : 'user_logout'),
    revokedAtMs: nowMs,
    expiresAtMs: target.expiresAtMs,
  })
  return { jti: target.jti }
}

function notYours(): RegistryError {
  return new RegistryError('not_authorized', 'Only the token holder or an admin may revoke this token.')
}
