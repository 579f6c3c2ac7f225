/**
 * `POST /auth/challenge`, `POST /auth/token`, `POST /auth/token/revoke`, `GET /auth/revocations` (our revocation
 * feed for peers) (product spec "Authentication"; mounted only with `auth.enabled`; the key set is served by
 * jwks.ts whether or not auth is on). HTTP shape only: behaviour lives in auth/auth-challenge.ts, bearer-tokens.ts,
 * token-revocation.ts and revocation-feed.ts.
 *
 * Every route spends the per-IP and global /auth/* budgets before its body is read, and revoke and the feed
 * check their caller (`config.auth`, core/http/route-auth.ts).
 *
 * Media-type and shape rules for /auth/* (product spec "Endpoints"): a missing or unaccepted Content-Type is
 * 415 before parsing; malformed JSON and well-formed JSON of the wrong shape are 400 schema_violation (not 422);
 * a body over `limits.max_payload_bytes` is 413.
 */
import { RegistryErrorEnvelope, TOKEN_REVOKE_REASONS } from '@acdp/protocol'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { ACDP_MEDIA_TYPE, RegistryError } from '../core/errors.js'
import { isAcceptedJsonMediaType } from '../core/http/json-body.js'
import { exchangeChallenge, issueChallenge, type TokenRequest } from './auth-challenge.js'
import type { AuthRoutesOptions } from './authentication.js'
import { FEED_DEFAULT_LIMIT, FEED_MAX_LIMIT, readRevocationFeed } from './revocation-feed.js'
import { type RevokeRequest, revokeToken } from './token-revocation.js'

const DidString = { type: 'string', minLength: 1, maxLength: 4096 } as const
const ChallengeBody = {
  type: 'object',
  additionalProperties: false,
  required: ['agent_id'],
  properties: { agent_id: DidString },
} as const
const ChallengeResponse = {
  type: 'object',
  properties: {
    nonce: { type: 'string' },
    registry_authority: { type: 'string' },
    expires_at: { type: 'string' },
    signing_input: { type: 'string', description: 'acdp-registry-auth:v1:{nonce}:{agent_id}:{authority}:{expires_at}' },
  },
} as const
const TokenBody = {
  type: 'object',
  additionalProperties: false,
  required: ['agent_id', 'key_id', 'nonce', 'expires_at', 'algorithm', 'signature'],
  properties: {
    agent_id: DidString,
    key_id: DidString,
    nonce: { type: 'string', minLength: 1, maxLength: 128 },
    expires_at: { type: 'string', minLength: 1, maxLength: 64 },
    algorithm: { type: 'string', enum: ['ed25519', 'ecdsa-p256'] },
    signature: { type: 'string', minLength: 1, maxLength: 256, description: 'padded standard base64, 64 bytes' },
  },
} as const
const TokenResponse = {
  type: 'object',
  properties: { token: { type: 'string' }, token_type: { type: 'string' }, expires_at: { type: 'string' } },
} as const
const RevokeBody = {
  type: 'object',
  additionalProperties: false,
  properties: {
    jti: { type: 'string', minLength: 1, maxLength: 128 },
    token: { type: 'string', minLength: 1, maxLength: 8192 },
    reason: { type: 'string', enum: [...TOKEN_REVOKE_REASONS] },
  },
} as const
const FeedQuery = {
  type: 'object',
  properties: {
    since: { type: 'string', description: 'unix ms; entries revoked strictly after it (default 0)' },
    limit: { type: 'string', description: `entries per page, 1..${FEED_MAX_LIMIT} (default ${FEED_DEFAULT_LIMIT})` },
  },
} as const
const FeedResponse = {
  type: 'object',
  required: ['entries', 'next_cursor'],
  properties: {
    entries: {
      type: 'array',
      items: {
        type: 'object',
        required: ['jti', 'sub', 'iss', 'exp', 'revoked_at_ms'],
        properties: {
          jti: { type: 'string' },
          sub: { type: 'string' },
          iss: { type: 'string' },
          exp: { type: 'integer', description: 'the token’s exp (unix s)' },
          revoked_at_ms: { type: 'integer' },
        },
      },
    },
    next_cursor: { type: ['integer', 'null'], description: 'the last entry’s revoked_at_ms when more follow' },
  },
} as const
const errors = { '4xx': RegistryErrorEnvelope, '5xx': RegistryErrorEnvelope }

/** A non-negative decimal integer query value (attacker-controlled), else schema_violation naming it. */
function queryInteger(value: unknown, name: string, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback
  if (typeof value !== 'string' || !/^\d{1,16}$/.test(value)) {
    throw new RegistryError('schema_violation', `${name} must be a decimal integer.`)
  }
  const n = Number(value)
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    throw new RegistryError('schema_violation', `${name} must be between ${min} and ${max}.`)
  }
  return n
}

/** Route `preParsing` hook for /auth/*: unlike the publish routes, an absent Content-Type is 415 too. */
async function requireAuthMediaType(request: FastifyRequest, _reply: FastifyReply): Promise<void> {
  const type = request.headers['content-type']
  if (type === undefined || !isAcceptedJsonMediaType(type)) {
    throw new RegistryError('unsupported_media_type', 'Send the request body as application/json.')
  }
}

function sendJson(reply: FastifyReply, status: number, value: unknown): FastifyReply {
  // Nonces and tokens are per-caller secrets: never stored by any cache.
  return reply.code(status).header('content-type', ACDP_MEDIA_TYPE).header('cache-control', 'no-store').send(value)
}

export function registerAuthRoutes(app: FastifyInstance, options: AuthRoutesOptions): void {
  app.post(
    '/auth/challenge',
    {
      config: { auth: 'token-request' },
      preParsing: requireAuthMediaType,
      schema: {
        summary: 'Start challenge-response: a single-use nonce for agent_id',
        description: 'Sign `signing_input` (UTF-8) with a key of the agent DID and redeem it at POST /auth/token.',
        body: ChallengeBody,
        response: { 200: ChallengeResponse, ...errors },
      },
    },
    async (request, reply) => {
      const { agent_id } = request.body as { agent_id: string }
      return sendJson(reply, 200, await issueChallenge(options.challenge, agent_id))
    },
  )

  app.post(
    '/auth/token',
    {
      config: { auth: 'token-request' },
      preParsing: requireAuthMediaType,
      schema: {
        summary: 'Redeem a signed challenge for a bearer JWT',
        description:
          '403 not_authorized for an unknown, used or expired challenge or a signature that does not verify; 502 ' +
          'key_resolution_unreachable when the DID document cannot be fetched (retry with a new challenge).',
        body: TokenBody,
        response: { 200: TokenResponse, ...errors },
      },
    },
    async (request, reply) => {
      const issued = await exchangeChallenge(options.challenge, request.body as TokenRequest)
      return sendJson(reply, 200, { token: issued.token, token_type: 'Bearer', expires_at: issued.expiresAt })
    },
  )

  app.post(
    '/auth/token/revoke',
    {
      config: { auth: 'token-holder' },
      preParsing: requireAuthMediaType,
      schema: {
        summary: 'Revoke a bearer token (its holder, or an admin bearer)',
        description:
          'Body { jti?, token?, reason? }. Without jti/token the presented bearer is revoked. 204 on success; ' +
          '403 not_authorized without a valid bearer or for another agent’s token.',
        body: RevokeBody,
        response: { ...errors },
      },
    },
    async (request, reply) => {
      if (!options.revocation) {
        throw new RegistryError('not_implemented', 'Token revocation is not available in this embedding.')
      }
      // The caller (an admin or the bearer's agent) was settled by the `token-holder` check.
      await revokeToken(
        options.revocation,
        request.tokenCaller as NonNullable<typeof request.tokenCaller>,
        request.body as RevokeRequest,
      )
      return reply.code(204).header('cache-control', 'no-store').send()
    },
  )

  app.get(
    '/auth/revocations',
    {
      config: { auth: 'token-admin' },
      schema: {
        summary: 'Our revoked tokens, for peers’ [[auth.revocation_feeds]] (admin bearer)',
        description:
          'Entries revoked strictly after `since`, ordered by (revoked_at_ms, jti); keep the last entry’s ' +
          'revoked_at_ms as the next `since`. A page never ends inside a millisecond; entries appear 5 s after ' +
          'their revocation. 403 not_authorized without an admin bearer.',
        security: [{ adminBearer: [] }],
        querystring: FeedQuery,
        response: { 200: FeedResponse, ...errors },
      },
    },
    async (request, reply) => {
      if (!options.feed) throw new RegistryError('not_implemented', 'No revocation feed in this embedding.')
      const query = request.query as { since?: unknown; limit?: unknown }
      const since = queryInteger(query.since, 'since', 0, 0, Number.MAX_SAFE_INTEGER)
      const limit = queryInteger(query.limit, 'limit', FEED_DEFAULT_LIMIT, 1, FEED_MAX_LIMIT)
      return reply
        .header('content-type', 'application/json')
        .header('cache-control', 'no-store')
        .send(await readRevocationFeed(options.feed, since, limit))
    },
  )
}
