/**
 * Introspection, revocation and the revocation feed (product spec "Auth endpoints"; RFC 7662/7009 manners: an
 * introspection of anything that does not verify is just `{ active: false }`, a revocation always answers 200).
 */
import type { RevocationFeedPage, TokenRevokeReason } from '@acdp/protocol'
import { cutFeedRows, feedPageOf } from '@acdp/service-kit'
import type { Principal } from './credentials.js'
import type { JwtVerifier } from './jwt-verifier.js'
import { ControlPlaneError } from '../core/errors.js'
import type { ControlPlaneAuthStore } from './auth-store.js'
import type { RevocationList } from './revocation-list.js'

export interface TokenAdminDeps {
  verifier: JwtVerifier
  revocations: RevocationList
  authStore: ControlPlaneAuthStore
  clock: () => Date
  /** Called when a revocation is newly recorded. */
  onRevoked?: () => void
}

/**
 * Introspects a token for `caller` in `tenantId`. Inactive when it does not verify, is revoked, or belongs to
 * another tenant than the caller's (a tenant never learns about another tenant's tokens; admins see all).
 */
export async function introspectToken(
  deps: TokenAdminDeps,
  caller: Principal,
  tenantId: string,
  token: string,
): Promise<Record<string, unknown>> {
  const verified = await deps.verifier.inspect(token)
  if (verified === undefined) return { active: false }
  const { claims } = verified
  if (deps.revocations.has(claims.iss, claims.jti)) return { active: false }
  if (!caller.isAdmin && verified.tenant !== undefined && verified.tenant !== tenantId) return { active: false }
  const acdp = (claims['acdp'] ?? {}) as { registry?: unknown; key_id?: unknown }
  return {
    active: true,
    iss: claims.iss,
    sub: claims.sub,
    aud: claims.aud,
    jti: claims.jti,
    iat: claims.iat,
    nbf: claims.nbf,
    exp: claims.exp,
    token_type: 'Bearer',
    ...(typeof acdp.key_id === 'string' ? { key_id: acdp.key_id } : {}),
    ...(typeof acdp.registry === 'string' ? { registry: acdp.registry } : {}),
    ...(verified.tenant === undefined ? {} : { tenant: verified.tenant }),
    ...(verified.scopes.length > 0 ? { scope: verified.scopes.join(' ') } : {}),
  }
}

/**
 * Revokes a token. Allowed for an admin key, or for a JWT caller revoking a token of its own subject and issuer.
 * A token that does not verify (even ignoring expiry) cannot be attributed to anyone: it is left alone and the
 * answer is `{ revoked: false }` (reference #229). An expired token needs no revocation: `{ revoked: false }`.
 *
 * @returns `{ revoked: true }` when the token is on the deny list after the call (newly or already).
 * @throws ControlPlaneError FORBIDDEN when the caller is neither admin nor the token's subject.
 */
export async function revokeToken(
  deps: TokenAdminDeps,
  caller: Principal,
  token: string,
  reason: TokenRevokeReason,
): Promise<{ revoked: boolean }> {
  const verified = await deps.verifier.inspect(token, { allowExpired: true })
  if (verified === undefined) return { revoked: false }
  const { claims } = verified
  const isSelf = caller.kind === 'jwt' && caller.subject === claims.sub && caller.token?.iss === claims.iss
  if (!caller.isAdmin && !isSelf) {
    throw new ControlPlaneError('FORBIDDEN', 'only an admin key or the token holder may revoke a token')
  }
  const nowMs = deps.clock().getTime()
  if (claims.exp <= Math.floor(nowMs / 1000)) return { revoked: false }
  const inserted = await deps.revocations.record({
    iss: claims.iss,
    jti: claims.jti,
    sub: claims.sub,
    exp: claims.exp,
    revokedAtMs: nowMs,
    revokedBy: caller.actorId,
    reason,
  })
  if (inserted) deps.onRevoked?.()
  return { revoked: true }
}

/**
 * One page of the revocation feed: entries with revoked_at_ms > `since`, oldest first.
 *
 * A page never ends in the middle of a millisecond (the kit's cutFeedRows: entries sharing the last millisecond are
 * all on this page or all on the next), so a poller resuming at `next_cursor` with `>` misses nothing. When one millisecond holds more
 * than `limit` entries they are returned together, up to `hardCap`. `next_cursor` is the last entry's millisecond
 * when more entries may follow, else null.
 */
export async function readRevocationFeed(
  deps: Pick<TokenAdminDeps, 'authStore'>,
  since: number,
  limit: number,
): Promise<RevocationFeedPage> {
  const hardCap = limit * 10
  const cut = await cutFeedRows(
    await deps.authStore.listRevocationsAfter(since, limit + 1),
    limit,
    (row) => row.revokedAtMs,
    async (boundary) => {
      const sameMs = await deps.authStore.listRevocationsAfter(since, hardCap + 1)
      const rows = sameMs.filter((row) => row.revokedAtMs === boundary).slice(0, hardCap)
      return { rows, hasMore: sameMs.length > rows.length }
    },
  )
  const entries = cut.rows.map((row) => ({
    jti: row.jti,
    sub: row.sub,
    iss: row.iss,
    exp: row.exp,
    revoked_at_ms: row.revokedAtMs,
  }))
  return feedPageOf(entries, cut.hasMore)
}
