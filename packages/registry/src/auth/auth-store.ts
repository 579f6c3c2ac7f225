/**
 * Persistence of bearer-authentication state (migrations 0004, 0006): outstanding challenges and revoked tokens. One
 * Kysely code path for SQLite and PostgreSQL; every write is a single autocommit statement, so it never collides
 * with the SQLite publish writer's transactions. Instances sharing one PostgreSQL share this state.
 */
import { type Database, isUniqueViolation } from '@acdp/storage'
import { CompiledQuery, type Kysely } from 'kysely'
import type { RegistryDatabase } from '../store/schema.js'
import { SqliteStatements } from '../store/sqlite-statements.js'

export interface StoredChallenge {
  nonce: string
  agentId: string
  expiresAt: string
  expiresAtMs: number
}

export interface TokenRevocation {
  jti: string
  subject: string
  reason: string
  revokedAtMs: number
  expiresAtMs: number
}

export interface AuthStore {
  saveChallenge(challenge: StoredChallenge): Promise<void>
  /**
   * Deletes and returns the challenge `nonce` if it exists: whoever deletes it owns it, so of two concurrent
   * redemptions exactly one gets it. Expiry and agent checks are the caller's.
   */
  takeChallenge(nonce: string): Promise<StoredChallenge | undefined>
  /** Records a revocation; revoking an already revoked token keeps the first record and resolves normally. */
  revokeToken(revocation: TokenRevocation): Promise<void>
  /**
   * Whether the token `jti` of `issuer` is revoked: by us (POST /auth/token/revoke, any instance on the database)
   * or by that issuer's revocation feed (`[[auth.revocation_feeds]]`, keyed by issuer so no peer speaks for
   * another issuer's tokens). One statement.
   */
  isTokenRevoked(jti: string, issuer: string): Promise<boolean>
  /** Deletes challenges and revocations (ours and peers') expired at `nowMs`; returns how many rows went. */
  sweepExpired(nowMs: number): Promise<number>
}

export function createAuthStore(database: Database<RegistryDatabase>): AuthStore {
  const db: Kysely<RegistryDatabase> = database.db
  // The hot statements (a challenge saved and taken per token, a revocation lookup per authenticated request) are
  // compiled once; on SQLite they run as prepared statements straight on node:sqlite (sqlite-statements.ts)
  // instead of through Kysely's per-call build, compile and driver.
  // Ours or a peer's (revocation feeds): parameters jti, issuer, jti.
  const revokedSql = db
    .selectFrom('auth_revoked_token')
    .select('jti')
    .where('jti', '=', '')
    .unionAll(db.selectFrom('auth_peer_revoked_token').select('jti').where('issuer', '=', '').where('jti', '=', ''))
    .compile().sql
  const saveChallengeSql = db
    .insertInto('auth_challenge')
    .values({ nonce: '', agent_id: '', expires_at: '', expires_at_ms: 0 })
    .compile().sql
  const takeChallengeSql = db
    .deleteFrom('auth_challenge')
    .where('nonce', '=', '')
    .returning(['nonce', 'agent_id', 'expires_at', 'expires_at_ms'])
    .compile().sql
  const sqlite = database.sqlite ? new SqliteStatements(database.sqlite.raw) : undefined
  const rowsOf = async <Row>(query: CompiledQuery): Promise<Row[]> =>
    sqlite ? sqlite.all<Row>(query) : (await db.executeQuery<Row>(query)).rows
  return {
    async saveChallenge(challenge) {
      const query = CompiledQuery.raw(saveChallengeSql, [
        challenge.nonce,
        challenge.agentId,
        challenge.expiresAt,
        challenge.expiresAtMs,
      ])
      if (sqlite) sqlite.run(query)
      else await db.executeQuery(query)
    },

    async takeChallenge(nonce) {
      const [row] = await rowsOf<{
        nonce: string
        agent_id: string
        expires_at: string
        expires_at_ms: number | string
      }>(CompiledQuery.raw(takeChallengeSql, [nonce]))
      return row === undefined
        ? undefined
        : {
            nonce: row.nonce,
            agentId: row.agent_id,
            expiresAt: row.expires_at,
            expiresAtMs: Number(row.expires_at_ms),
          }
    },

    async revokeToken(revocation) {
      try {
        await db
          .insertInto('auth_revoked_token')
          .values({
            jti: revocation.jti,
            subject: revocation.subject,
            reason: revocation.reason,
            revoked_at_ms: revocation.revokedAtMs,
            expires_at_ms: revocation.expiresAtMs,
          })
          .execute()
      } catch (error) {
        if (!isUniqueViolation(error)) throw error
      }
    },

    async isTokenRevoked(jti, issuer) {
      return (await rowsOf(CompiledQuery.raw(revokedSql, [jti, issuer, jti]))).length > 0
    },

    async sweepExpired(nowMs) {
      const challenges = await db.deleteFrom('auth_challenge').where('expires_at_ms', '<', nowMs).executeTakeFirst()
      const revoked = await db.deleteFrom('auth_revoked_token').where('expires_at_ms', '<', nowMs).executeTakeFirst()
      const peers = await db.deleteFrom('auth_peer_revoked_token').where('expires_at_ms', '<', nowMs).executeTakeFirst()
      return Number(challenges.numDeletedRows) + Number(revoked.numDeletedRows) + Number(peers.numDeletedRows)
    },
  }
}
