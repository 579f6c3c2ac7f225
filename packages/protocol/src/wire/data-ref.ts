/**
 * `acdp-data-ref.schema.json` (RFC-ACDP-0002 §6): the root is OPEN (unknown members are producer content,
 * kept and hashed, can-010), `embedded` is CLOSED, a structured `location` is open. Exactly one of
 * `location` / `embedded`. Decoded-size and embedded-hash checks (§6.6 checks 6 and 8) are runtime checks.
 */
import { type Static, Type } from 'typebox'
import { ContentHash, DOTTED_SCHEME_PATTERN, ifThen } from './common.js'

/** §6.6 checks 3–4: a scheme, 3..4096 characters, and no `user[:password]@` userinfo. */
export const UriLocation = Type.String({
  pattern: '^[a-z][a-z0-9+.-]*:',
  not: { pattern: '^[a-z][a-z0-9+.-]*://[^/?#@]+@' },
  minLength: 3,
  maxLength: 4096,
})

/** §6.6 check 5: a dotted-namespace `scheme`; every other member is the locator's own business. */
export const StructuredLocation = Type.Object(
  { scheme: Type.String({ pattern: DOTTED_SCHEME_PATTERN }) },
  { additionalProperties: true },
)

/** §6.3: inline content; `utf8` and `base64` carry a string, `json` any JSON value. */
export const EmbeddedData = Type.Object(
  {
    encoding: Type.Union([Type.Literal('json'), Type.Literal('utf8'), Type.Literal('base64')]),
    content: Type.Unknown(),
    content_hash: Type.Optional(Type.String({ pattern: '^sha256:[a-f0-9]{64}$' })),
  },
  {
    additionalProperties: false,
    allOf: [
      ifThen(
        { properties: { encoding: { enum: ['utf8', 'base64'] } } },
        { properties: { content: { type: 'string' } } },
      ),
    ],
  },
)
export type EmbeddedData = Static<typeof EmbeddedData>

export const DataRef = Type.Object(
  {
    type: Type.Union([
      Type.Literal('primary_result'),
      Type.Literal('raw_data'),
      Type.Literal('supporting_info'),
      Type.Literal('derived_data'),
    ]),
    description: Type.Optional(Type.String({ maxLength: 1000 })),
    size_bytes: Type.Optional(Type.Integer({ minimum: 0 })),
    format: Type.Optional(Type.String()),
    schema_version: Type.Optional(Type.String()),
    content_hash: Type.Optional(ContentHash),
    location: Type.Optional(Type.Union([UriLocation, StructuredLocation])),
    embedded: Type.Optional(EmbeddedData),
  },
  {
    additionalProperties: true,
    oneOf: [
      { required: ['location'], not: { required: ['embedded'] } },
      { required: ['embedded'], not: { required: ['location'] } },
    ],
  },
)
export type DataRef = Static<typeof DataRef>
