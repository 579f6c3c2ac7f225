/**
 * Persistence of bearer-authentication state (migration 0004): outstanding challenges and revoked tokens. One
 * Kysely code path for SQLite and PostgreSQL; every write is a single autocommit statement, so it never collides
 * with the SQLite publish writer's transactions. Instances sharing one PostgreSQL share this state.
 */
import { type Database, isUniqueViolation } from '@acdp/storage'
import type { Kysely } from 'kysely'
import type { RegistryDatabase } from './schema.js'

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
  isTokenRevoked(jti: string): Promise<boolean>
  /** Deletes challenges and revocations expired at `nowMs`; returns how many rows went. */
  sweepExpired(nowMs: number): Promise<number>
}

export function createAuthStore(database: Database<RegistryDatabase>): AuthStore {
  const db: Kysely<RegistryDatabase> = database.db
  return {
    async saveChallenge(challenge) {
      await db
        .insertInto('auth_challenge')
        .values({
          nonce: challenge.nonce,
          agent_id: challenge.agentId,
          expires_at: challenge.expiresAt,
          expires_at_ms: challenge.expiresAtMs,
        })
        .execute()
    },

    async takeChallenge(nonce) {
      const row = await db
        .deleteFrom('auth_challenge')
        .where('nonce', '=', nonce)
        .returning(['nonce', 'agent_id', 'expires_at', 'expires_at_ms'])
        .executeTakeFirst()
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

    async isTokenRevoked(jti) {
      const row = await db.selectFrom('auth_revoked_token').select('jti').where('jti', '=', jti).executeTakeFirst()
      return row !== undefined
    },

    async sweepExpired(nowMs) {
      const challenges = await db.deleteFrom('auth_challenge').where('expires_at_ms', '<', nowMs).executeTakeFirst()
      const revoked = await db.deleteFrom('auth_revoked_token').where('expires_at_ms', '<', nowMs).executeTakeFirst()
      return Number(challenges.numDeletedRows) + Number(revoked.numDeletedRows)
    },
  }
}
