/**
 * Token authentication routes (product spec "Auth endpoints"): the agent challenge/token exchange (public, per-IP
 * throttled), introspection and revocation (key/JWT), the revocation feed, the pinned keys and their reload (admin), and the
 * JWKS document (public, cacheable).
 */
import { RevocationFeedPage, TOKEN_REVOKE_REASONS, type TokenRevokeReason } from '@acdp/protocol'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { type Static, Type } from 'typebox'
import { ControlPlaneError } from '../core/errors.js'
import { exchangeToken, issueChallenge } from './agent-tokens.js'
import type { TokenFeature } from './token-feature.js'
import { listPeerFeeds } from './revocation-feed-status.js'
import { introspectToken, readRevocationFeed, revokeToken } from './token-revocation.js'
import { JwksShape, PeerFeedListShape, PinnedKeyListShape } from '../response-schemas/auth.js'
import type { RoutePlugin } from '../core/route-context.js'

const Did = Type.String({ minLength: 8, maxLength: 2048, pattern: '^did:[a-z0-9]+:[A-Za-z0-9._:%-]+$' })
const Token = Type.String({ minLength: 1, maxLength: 8192 })

const ChallengeBody = Type.Object({ agent_id: Did }, { additionalProperties: false })
const TokenBody = Type.Object(
  {
    agent_id: Did,
    key_id: Type.String({ minLength: 1, maxLength: 2200 }),
    nonce: Type.String({ minLength: 1, maxLength: 128 }),
    expires_at: Type.Integer({ minimum: 0 }),
    algorithm: Type.String({ minLength: 1, maxLength: 32 }),
    signature: Type.String({ minLength: 1, maxLength: 256 }),
  },
  { additionalProperties: false },
)
const IntrospectBody = Type.Object({ token: Token }, { additionalProperties: false })
const RevokeBody = Type.Object(
  { token: Token, reason: Type.Optional(Type.Union(TOKEN_REVOKE_REASONS.map((reason) => Type.Literal(reason)))) },
  { additionalProperties: false },
)
const ChallengeShape = Type.Object({
  nonce: Type.String(),
  registry_authority: Type.String(),
  expires_at: Type.Integer({ description: 'unix seconds' }),
  signing_input: Type.String(),
})
const TokenShape = Type.Object({
  token: Type.String(),
  token_type: Type.Literal('Bearer'),
  expires_at: Type.Integer({ description: 'unix seconds' }),
})
const IntrospectionShape = Type.Object(
  {
    active: Type.Boolean(),
    iss: Type.Optional(Type.String()),
    sub: Type.Optional(Type.String()),
    aud: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())])),
    jti: Type.Optional(Type.String()),
    iat: Type.Optional(Type.Integer()),
    nbf: Type.Optional(Type.Integer()),
    exp: Type.Optional(Type.Integer()),
    token_type: Type.Optional(Type.Literal('Bearer')),
    key_id: Type.Optional(Type.String()),
    registry: Type.Optional(Type.String()),
    tenant: Type.Optional(Type.String()),
    scope: Type.Optional(Type.String()),
  },
  { description: 'canonical claims when active; only { active: false } otherwise' },
)

const FeedQuery = Type.Object(
  {
    // Bounded like every instant this service stores: beyond 2^53 − 1 a number is no longer exact in JavaScript,
    // and PostgreSQL's bigint column refuses values past 2^63 (the fuzzer found that as a 500).
    since: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })),
  },
  { additionalProperties: false },
)

export const authRoutes: RoutePlugin = async (app, { config, deps, tokens, gates }) => {
  const issuance = (): Parameters<typeof issueChallenge>[0] => {
    if (!config.tokens.issuanceEnabled || tokens.signer === undefined) {
      throw new ControlPlaneError('NOT_FOUND', 'token issuance is not enabled')
    }
    return {
      tokens: config.tokens,
      authStore: tokens.authStore,
      pinned: tokens.pinned,
      signer: tokens.signer,
      clock: deps.clock,
      random: deps.random,
      log: app.log,
      onOutcome: (result: string) => tokens.metrics.tokenRequests.inc({ result }),
    }
  }
  const throttle = throttleHook(tokens, () => deps.clock().getTime())
  const admin = {
    verifier: tokens.verifier,
    revocations: tokens.revocations,
    authStore: tokens.authStore,
    clock: deps.clock,
    onRevoked: () => tokens.metrics.tokenRevocations.inc({ source: 'local' }),
  }

  app.post(
    '/auth/challenge',
    {
      config: { auth: 'public' },
      onRequest: throttle,
      schema: {
        summary: 'Start a DID sign-in: a challenge to sign',
        tags: ['auth'],
        body: ChallengeBody,
        response: { 200: ChallengeShape },
      },
    },
    async (request) => issueChallenge(issuance(), (request.body as Static<typeof ChallengeBody>).agent_id),
  )

  app.post(
    '/auth/token',
    {
      config: { auth: 'public' },
      onRequest: throttle,
      schema: {
        summary: 'Exchange a signed challenge for an access token',
        tags: ['auth'],
        body: TokenBody,
        response: { 200: TokenShape },
      },
    },
    async (request) => {
      const body = request.body as Static<typeof TokenBody>
      const tenantId = config.tokens.tenantAgents.find((entry) => entry.agentDid === body.agent_id)?.tenantId
      await gates.quotas.consume({ action: 'token.issue', tenantId: tenantId ?? 'default', agentDid: body.agent_id })
      return exchangeToken(issuance(), body)
    },
  )

  app.post(
    '/auth/introspect',
    {
      schema: {
        summary: 'Introspect an access token',
        tags: ['auth'],
        body: IntrospectBody,
        response: { 200: IntrospectionShape },
      },
    },
    async (request) =>
      introspectToken(
        admin,
        principalOf(request),
        request.tenantId,
        (request.body as Static<typeof IntrospectBody>).token,
      ),
  )

  app.post(
    '/auth/token/revoke',
    {
      schema: {
        summary: 'Revoke an access token',
        tags: ['auth'],
        body: RevokeBody,
        response: { 200: Type.Object({ revoked: Type.Boolean() }) },
      },
    },
    async (request) => {
      const body = request.body as Static<typeof RevokeBody>
      return revokeToken(admin, principalOf(request), body.token, (body.reason ?? 'unspecified') as TokenRevokeReason)
    },
  )

  app.get(
    '/auth/revocations',
    {
      config: { auth: 'admin' },
      schema: {
        summary: 'Revoked-token feed (admin)',
        tags: ['auth'],
        querystring: FeedQuery,
        response: { 200: RevocationFeedPage },
      },
    },
    async (request) => {
      const query = request.query as Static<typeof FeedQuery>
      return readRevocationFeed(admin, query.since ?? 0, query.limit ?? 200)
    },
  )

  app.get(
    '/auth/revocation-feeds',
    {
      config: { auth: 'admin' },
      schema: {
        summary: "The peers' revocation feeds this service follows (admin)",
        description:
          'One entry per REVOCATION_FEEDS feed: cursor, last poll outcome of this instance, revocations applied. ' +
          'The feeds and the deny list are instance-wide, like GET /auth/revocations; no credential is returned.',
        tags: ['auth'],
        response: { 200: PeerFeedListShape },
      },
    },
    async () =>
      listPeerFeeds({
        feeds: config.tokens.revocationFeeds,
        authStore: tokens.authStore,
        lastPoll: (issuer) => tokens.feeds.lastPoll(issuer),
      }),
  )

  app.get(
    '/.well-known/jwks.json',
    {
      config: { auth: 'public' },
      schema: {
        summary: "The control plane's token-signing public keys (JWKS)",
        tags: ['auth'],
        response: { 200: JwksShape },
      },
    },
    async (_request, reply) => {
      void reply.header('cache-control', 'public, max-age=300')
      return tokens.signer?.jwks() ?? { keys: [] }
    },
  )

  app.get(
    '/admin/pinned-keys',
    {
      config: { auth: 'admin' },
      schema: {
        summary: 'The pinned agent keys in force (admin; public keys only)',
        tags: ['auth'],
        response: { 200: PinnedKeyListShape },
      },
    },
    async () => {
      const nowSeconds = Math.floor(deps.clock().getTime() / 1000)
      const data = tokens.pinned.list().map((key) => ({
        did: key.did,
        algorithm: key.algorithm,
        publicKey: Buffer.from(key.publicKey).toString('base64'),
        validFrom: key.validFrom ?? null,
        validUntil: key.validUntil ?? null,
        validNow:
          (key.validFrom === undefined || nowSeconds >= key.validFrom) &&
          (key.validUntil === undefined || nowSeconds < key.validUntil),
      }))
      return { data, total: data.length }
    },
  )

  app.post(
    '/admin/pinned-keys/reload',
    {
      config: { auth: 'admin' },
      schema: {
        summary: 'Reload pinned registry keys (admin)',
        tags: ['auth'],
        response: { 200: Type.Object({ ok: Type.Boolean(), count: Type.Integer() }) },
      },
    },
    async () => {
      const result = tokens.reloadPinnedKeys()
      if ('problems' in result) {
        throw new ControlPlaneError(
          'VALIDATION_ERROR',
          `CONTROL_PLANE_PINNED_KEYS is invalid, the previous keys stay active: ${result.problems.join('; ')}`,
        )
      }
      return { ok: true, count: result.count }
    },
  )
}

function principalOf(request: FastifyRequest): NonNullable<FastifyRequest['principal']> {
  if (request.principal === undefined)
    throw new ControlPlaneError('UNAUTHORIZED', 'a valid bearer credential is required')
  return request.principal
}

/** The per-IP throttle of the token routes (rule 9), run before the body is read. */
function throttleHook(tokens: TokenFeature, now: () => number) {
  return async (request: FastifyRequest, _reply: FastifyReply): Promise<void> => {
    const retryAfter = tokens.throttle.hit(request.ip, now())
    if (retryAfter > 0) {
      throw new ControlPlaneError('RATE_LIMITED', 'too many token requests from this address', {
        headers: { 'retry-after': String(retryAfter) },
      })
    }
  }
}
