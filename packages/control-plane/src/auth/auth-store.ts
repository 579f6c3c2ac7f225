/**
 * Persistence of token authentication (challenges, revocations, feed cursors), capabilities and shared quota
 * counters, over Kysely for both dialects. Every method is one statement, so each is atomic on its own:
 * consuming a nonce is a DELETE … RETURNING (two instances cannot both consume it), counting against a quota is an
 * upsert-increment RETURNING the new count.
 */
import { createFeedCursorStore } from '@acdp/service-kit'
import type { DatabaseKind } from '@acdp/storage'
import type { Kysely } from 'kysely'
import type { AgentCapabilitiesTable, AuthTables } from './auth-schema.js'

export interface ChallengeRecord {
  nonce: string
  agentDid: string
  registryAuthority: string
  /** Unix seconds. */
  expiresAt: number
  createdAt: number
}

/** A revocation entry (product spec "Revocation entry", plus who and why). */
export interface RevocationRecord {
  iss: string
  jti: string
  sub: string
  /** Unix seconds. */
  exp: number
  revokedAtMs: number
  revokedBy: string
  reason: string
}

export interface CapabilityRecord {
  tenantId: string
  agentDid: string
  capabilityUri: string
  declaredAt: string
  signedBy: string
  algorithm: string
  signature: string
  createdAt: number
}

export interface ControlPlaneAuthStore {
  insertChallenge(record: ChallengeRecord): Promise<void>
  /** Deletes and returns the challenge (single use); undefined when absent or already consumed. */
  consumeChallenge(nonce: string): Promise<ChallengeRecord | undefined>
  /** Deletes challenges expired before `nowSeconds`; returns how many. */
  deleteExpiredChallenges(nowSeconds: number): Promise<number>

  /** Records a revocation; false when (iss, jti) was already revoked (the first record is kept). */
  insertRevocation(record: RevocationRecord): Promise<boolean>
  /** Whether (iss, jti) is on the deny list. */
  isRevoked(iss: string, jti: string): Promise<boolean>
  /** Revocations with revoked_at_ms > `sinceMs`, ordered by (revoked_at_ms, iss, jti), at most `limit`. */
  listRevocationsAfter(sinceMs: number, limit: number): Promise<RevocationRecord[]>
  /** Unexpired revocations recorded at or after `sinceMs` (an instance's incremental reload). */
  listLiveRevocationsSince(sinceMs: number, nowSeconds: number): Promise<RevocationRecord[]>
  /** Deletes revocations of tokens expired before `nowSeconds`. */
  deleteExpiredRevocations(nowSeconds: number): Promise<number>
  getFeedCursor(issuer: string): Promise<number | undefined>
  setFeedCursor(issuer: string, cursorMs: number, now: number): Promise<void>
  /** The durable cursor of a peer feed and when it last moved (unix ms); undefined before its first page. */
  getFeedCursorState(issuer: string): Promise<{ cursorMs: number; updatedAtMs: number } | undefined>
  /**
   * Revocations still on the deny list that the feed of `issuer` brought (iss = issuer, recorded by
   * `feed:<issuer>`; a peer speaks only for its own tokens, so the primary key's iss prefix bounds the scan): how
   * many, and the newest `limit` of them (by revoked_at_ms, then jti, descending).
   */
  summarizeFeedRevocations(issuer: string, limit: number): Promise<{ count: number; newest: RevocationRecord[] }>

  /** Inserts unless (tenant, agent, URI) exists; returns the stored row (the original on a re-declaration). */
  declareCapability(record: CapabilityRecord): Promise<{ record: CapabilityRecord; created: boolean }>
  /** Capabilities of a tenant with this URI, oldest first. */
  findCapabilities(tenantId: string, capabilityUri: string, limit: number): Promise<CapabilityRecord[]>
  /** Capabilities of one agent in a tenant, by URI. */
  listAgentCapabilities(tenantId: string, agentDid: string, limit: number): Promise<CapabilityRecord[]>
  /** Every capability of the tenant, at most `limit` (the routing arms). */
  listTenantCapabilities(tenantId: string, limit: number): Promise<CapabilityRecord[]>

  /** Adds one to the counter of (bucket, window) and returns the new count. */
  incrementQuota(bucket: string, windowStart: number): Promise<number>
  /** Deletes counters of windows that started before `before`. */
  deleteQuotaWindowsBefore(before: number): Promise<number>
}

export function createAuthStore(database: { db: Kysely<unknown>; kind: DatabaseKind }): ControlPlaneAuthStore {
  const db = database.db as unknown as Kysely<AuthTables>
  // A write replaces the row, with no forward-only guard (the registry has one): the poller only ever writes a
  // cursor past the one it read.
  const cursors = createFeedCursorStore(db, {
    table: 'revocation_cursors',
    keyColumn: 'issuer',
    updatedAtColumn: 'updated_at',
    forwardOnly: false,
  })
  return {
    async insertChallenge(record) {
      await db
        .insertInto('auth_challenges')
        .values({
          nonce: record.nonce,
          agent_did: record.agentDid,
          registry_authority: record.registryAuthority,
          expires_at: record.expiresAt,
          created_at: record.createdAt,
        })
        .execute()
    },

    async consumeChallenge(nonce) {
      const row = await db.deleteFrom('auth_challenges').where('nonce', '=', nonce).returningAll().executeTakeFirst()
      if (row === undefined) return undefined
      return {
        nonce: row.nonce,
        agentDid: row.agent_did,
        registryAuthority: row.registry_authority,
        expiresAt: Number(row.expires_at),
        createdAt: Number(row.created_at),
      }
    },

    async deleteExpiredChallenges(nowSeconds) {
      const result = await db.deleteFrom('auth_challenges').where('expires_at', '<', nowSeconds).executeTakeFirst()
      return Number(result.numDeletedRows)
    },

    async insertRevocation(record) {
      const result = await db
        .insertInto('revoked_tokens')
        .values({
          iss: record.iss,
          jti: record.jti,
          sub: record.sub,
          exp: record.exp,
          revoked_at_ms: record.revokedAtMs,
          revoked_by: record.revokedBy,
          reason: record.reason,
        })
        .onConflict((conflict) => conflict.columns(['iss', 'jti']).doNothing())
        .executeTakeFirst()
      return Number(result.numInsertedOrUpdatedRows ?? 0) > 0
    },

    async isRevoked(iss, jti) {
      const row = await db
        .selectFrom('revoked_tokens')
        .select('jti')
        .where('iss', '=', iss)
        .where('jti', '=', jti)
        .executeTakeFirst()
      return row !== undefined
    },

    async listRevocationsAfter(sinceMs, limit) {
      const rows = await db
        .selectFrom('revoked_tokens')
        .selectAll()
        .where('revoked_at_ms', '>', sinceMs)
        .orderBy('revoked_at_ms')
        .orderBy('iss')
        .orderBy('jti')
        .limit(limit)
        .execute()
      return rows.map(toRevocation)
    },

    async listLiveRevocationsSince(sinceMs, nowSeconds) {
      const rows = await db
        .selectFrom('revoked_tokens')
        .selectAll()
        .where('revoked_at_ms', '>=', sinceMs)
        .where('exp', '>=', nowSeconds)
        .execute()
      return rows.map(toRevocation)
    },

    async deleteExpiredRevocations(nowSeconds) {
      const result = await db.deleteFrom('revoked_tokens').where('exp', '<', nowSeconds).executeTakeFirst()
      return Number(result.numDeletedRows)
    },

    getFeedCursor: (issuer) => cursors.read(issuer),
    setFeedCursor: (issuer, cursorMs, now) => cursors.write(issuer, cursorMs, now),
    getFeedCursorState: (issuer) => cursors.readState(issuer),

    async summarizeFeedRevocations(issuer, limit) {
      const revokedBy = `feed:${issuer}`
      const counted = await db
        .selectFrom('revoked_tokens')
        .select((eb) => eb.fn.countAll().as('count'))
        .where('iss', '=', issuer)
        .where('revoked_by', '=', revokedBy)
        .executeTakeFirstOrThrow()
      const rows = await db
        .selectFrom('revoked_tokens')
        .selectAll()
        .where('iss', '=', issuer)
        .where('revoked_by', '=', revokedBy)
        .orderBy('revoked_at_ms', 'desc')
        .orderBy('jti', 'desc')
        .limit(limit)
        .execute()
      return { count: Number(counted.count), newest: rows.map(toRevocation) }
    },

    async declareCapability(record) {
      const inserted = await db
        .insertInto('agent_capabilities')
        .values({
          tenant_id: record.tenantId,
          agent_did: record.agentDid,
          capability_uri: record.capabilityUri,
          declared_at: record.declaredAt,
          signed_by: record.signedBy,
          algorithm: record.algorithm,
          signature: record.signature,
          created_at: record.createdAt,
        })
        .onConflict((conflict) => conflict.columns(['tenant_id', 'agent_did', 'capability_uri']).doNothing())
        .executeTakeFirst()
      const row = await db
        .selectFrom('agent_capabilities')
        .selectAll()
        .where('tenant_id', '=', record.tenantId)
        .where('agent_did', '=', record.agentDid)
        .where('capability_uri', '=', record.capabilityUri)
        .executeTakeFirstOrThrow()
      return { record: toCapability(row), created: Number(inserted.numInsertedOrUpdatedRows ?? 0) > 0 }
    },

    async findCapabilities(tenantId, capabilityUri, limit) {
      const rows = await db
        .selectFrom('agent_capabilities')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('capability_uri', '=', capabilityUri)
        .orderBy('created_at')
        .orderBy('agent_did')
        .limit(limit)
        .execute()
      return rows.map(toCapability)
    },

    async listAgentCapabilities(tenantId, agentDid, limit) {
      const rows = await db
        .selectFrom('agent_capabilities')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .where('agent_did', '=', agentDid)
        .orderBy('capability_uri')
        .limit(limit)
        .execute()
      return rows.map(toCapability)
    },

    async listTenantCapabilities(tenantId, limit) {
      const rows = await db
        .selectFrom('agent_capabilities')
        .selectAll()
        .where('tenant_id', '=', tenantId)
        .orderBy('capability_uri')
        .orderBy('agent_did')
        .limit(limit)
        .execute()
      return rows.map(toCapability)
    },

    async incrementQuota(bucket, windowStart) {
      const row = await db
        .insertInto('quota_counters')
        .values({ bucket, window_start: windowStart, count: 1 })
        .onConflict((conflict) =>
          conflict
            .columns(['bucket', 'window_start'])
            .doUpdateSet((eb) => ({ count: eb('quota_counters.count', '+', 1) })),
        )
        .returning('count')
        .executeTakeFirstOrThrow()
      return Number(row.count)
    },

    async deleteQuotaWindowsBefore(before) {
      const result = await db.deleteFrom('quota_counters').where('window_start', '<', before).executeTakeFirst()
      return Number(result.numDeletedRows)
    },
  }
}

function toRevocation(row: AuthTables['revoked_tokens']): RevocationRecord {
  return {
    iss: row.iss,
    jti: row.jti,
    sub: row.sub,
    exp: Number(row.exp),
    revokedAtMs: Number(row.revoked_at_ms),
    revokedBy: row.revoked_by,
    reason: row.reason,
  }
}

function toCapability(row: AgentCapabilitiesTable): CapabilityRecord {
  return {
    tenantId: row.tenant_id,
    agentDid: row.agent_did,
    capabilityUri: row.capability_uri,
    declaredAt: row.declared_at,
    signedBy: row.signed_by,
    algorithm: row.algorithm,
    signature: row.signature,
    createdAt: Number(row.created_at),
  }
}
