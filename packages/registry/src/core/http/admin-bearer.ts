/**
 * The admin bearer check (product spec "Authentication" 4): `Authorization: Bearer <token>` must equal one of
 * `auth.admin_tokens`, compared in constant time. Both sides are hashed first so the comparison always runs over
 * equal lengths and its timing says nothing about the token's length or its first differing byte; every
 * configured token is compared (no early exit), so which entry matched is not observable either. The `admin`
 * route-auth kind (route-auth.ts) refuses with `not_authorized` (403) whether the header is absent, malformed or
 * wrong, so the answer never hints at which.
 */
import { createHash, timingSafeEqual } from 'node:crypto'

const BEARER = /^Bearer ([\x21-\x7e]+)$/i

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest()
}

/** The digests `isAdminBearer` compares against, computed once per configuration. */
export function adminTokenDigests(tokens: readonly string[]): Buffer[] {
  return tokens.map(digest)
}

/** True when `authorization` carries one of `tokens` (attacker-controlled header; never logged). */
export function isAdminBearer(authorization: string | undefined, tokenDigests: readonly Buffer[]): boolean {
  const match = authorization === undefined ? null : BEARER.exec(authorization.trim())
  const presented = digest(match?.[1] ?? '')
  let ok = false
  for (const expected of tokenDigests) ok = timingSafeEqual(presented, expected) || ok
  return ok && match !== null
}
