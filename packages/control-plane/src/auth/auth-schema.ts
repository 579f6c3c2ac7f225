/**
 * Table shapes of token authentication, capabilities and quota counters (migration 0300). Same portable
 * conventions as the core schema: epoch integers, text everywhere else.
 */

/** An outstanding challenge nonce. */
export type AuthChallengesTable = {
  nonce: string
  agent_did: string
  registry_authority: string
  /** Unix seconds. */
  expires_at: number
  /** Epoch milliseconds. */
  created_at: number
}

/** A revoked token, local or learned from a peer feed. */
export type RevokedTokensTable = {
  iss: string
  jti: string
  sub: string
  /** Unix seconds: the token's own expiry; the row is purged after it. */
  exp: number
  revoked_at_ms: number
  /** Actor id of the revoker, or `feed:<issuer>`. */
  revoked_by: string
  reason: string
}

/** Durable cursor of one polled peer revocation feed. */
export type RevocationCursorsTable = {
  issuer: string
  cursor_ms: number
  updated_at: number
}

/** A declared capability. */
export type AgentCapabilitiesTable = {
  tenant_id: string
  agent_did: string
  capability_uri: string
  /** The declared_at text exactly as signed. */
  declared_at: string
  signed_by: string
  algorithm: string
  signature: string
  created_at: number
}

/** One fixed-window quota counter. */
export type QuotaCountersTable = {
  bucket: string
  /** Epoch milliseconds of the window start. */
  window_start: number
  count: number
}

export type AuthTables = {
  auth_challenges: AuthChallengesTable
  revoked_tokens: RevokedTokensTable
  revocation_cursors: RevocationCursorsTable
  agent_capabilities: AgentCapabilitiesTable
  quota_counters: QuotaCountersTable
}
