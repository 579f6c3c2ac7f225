/** What the console reads of the token routes: the JWKS document and the pinned agent keys (public material only). */
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
