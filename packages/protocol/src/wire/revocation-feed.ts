/**
 * A page of a token revocation feed (product spec registry.md "Authentication", control-plane.md "Auth
 * endpoints"): what a registry or a control plane serves at its revocation feed for peers to poll, entries
 * revoked after the `since` cursor, oldest first. Both servers serve and poll this one shape.
 */
import { type Static, Type } from 'typebox'

/** One revoked token: its `jti`, `sub`, `iss`, its `exp` (unix seconds) and when it was revoked (unix ms). */
export const RevocationFeedEntry = Type.Object({
  jti: Type.String(),
  sub: Type.String(),
  iss: Type.String(),
  exp: Type.Integer(),
  revoked_at_ms: Type.Integer(),
})
export type RevocationFeedEntry = Static<typeof RevocationFeedEntry>

/** `next_cursor`: the last entry's `revoked_at_ms` when more entries follow; null on the last page. */
export const RevocationFeedPage = Type.Object({
  entries: Type.Array(RevocationFeedEntry),
  next_cursor: Type.Union([Type.Integer(), Type.Null()]),
})
export type RevocationFeedPage = Static<typeof RevocationFeedPage>
