/**
 * What the console reads of the token routes: the JWKS document, the pinned agent keys (public material only) and
 * the peers' revocation feeds this control plane follows.
 */
import { Type } from 'typebox'

/** GET /.well-known/jwks.json: public JWKs only. */
export const JwksShape = Type.Object({ keys: Type.Array(Type.Record(Type.String(), Type.Unknown())) })

const UnixSeconds = Type.Union([Type.Integer(), Type.Null()], { description: 'unix seconds; null = open' })

export const PinnedKeyShape = Type.Object({
  did: Type.String(),
  algorithm: Type.Union([Type.Literal('ed25519'), Type.Literal('ecdsa-p256')]),
  publicKey: Type.String({ description: 'the public key, standard base64 (as configured)' }),
  validFrom: UnixSeconds,
  validUntil: UnixSeconds,
  validNow: Type.Boolean({ description: 'the window holds at the time of the request' }),
})

/** GET /admin/pinned-keys (admin). */
export const PinnedKeyListShape = Type.Object({ data: Type.Array(PinnedKeyShape), total: Type.Integer() })

/** Revocations listed per peer feed in GET /auth/revocation-feeds (as digests). */
export const NEWEST_PER_FEED = 10

const Instant = Type.String({ description: 'RFC 3339 UTC with milliseconds' })
export const PeerFeedShape = Type.Object({
  issuer: Type.String(),
  feedUrl: Type.String({ description: 'origin and path of the configured feed URL (no userinfo, no query)' }),
  pollSeconds: Type.Integer(),
  cursorMs: Type.Union([Type.Integer(), Type.Null()], {
    description: 'the durable cursor (unix ms, shared by all instances); null before the first page moved it',
  }),
  cursorUpdatedAt: Type.Union([Instant, Type.Null()]),
  lastPoll: Type.Union(
    [
      Type.Object({
        at: Instant,
        outcome: Type.Union([Type.Literal('ok'), Type.Literal('error')]),
        errorCategory: Type.Union([Type.String(), Type.Null()], {
          description:
            'http_<status>, malformed_page, malformed_entry, the outbound refusal reason or failure code, or internal',
        }),
      }),
      Type.Null(),
    ],
    {
      description:
        "this instance's last poll (kept in memory per instance: another instance may report another); null " +
        'before its first poll ended',
    },
  ),
  applied: Type.Object({
    count: Type.Integer({ description: 'revocations from this feed still on the deny list (expired ones are purged)' }),
    newest: Type.Array(
      Type.Object({
        jtiSha256: Type.String({ description: 'first 16 hex digits of SHA-256 of the jti' }),
        subjectSha256: Type.String({ description: 'first 16 hex digits of SHA-256 of the subject' }),
        exp: Type.Integer({ description: 'unix seconds' }),
        revokedAt: Instant,
      }),
      { maxItems: NEWEST_PER_FEED },
    ),
  }),
})

/** GET /auth/revocation-feeds (admin). */
export const PeerFeedListShape = Type.Object({ data: Type.Array(PeerFeedShape), total: Type.Integer() })
