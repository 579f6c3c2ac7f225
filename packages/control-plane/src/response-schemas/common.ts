/** Building blocks of the response schemas. */
import { Type, type TSchema } from 'typebox'

export const Timestamp = Type.String({ description: 'RFC 3339 UTC with milliseconds' })

/** `schema` or JSON null (the API writes absent values as null, never omits them). */
export const Nullable = <T extends TSchema>(schema: T) => Type.Union([schema, Type.Null()])

export const NullableString = Nullable(Type.String())

/**
 * What an event says of the context it is about, in the order both the stored event (GET /events) and the stream
 * frame list it.
 */
export const ContextFacts = {
  ctxId: Nullable(Type.String()),
  lineageId: Nullable(Type.String()),
  agentId: Nullable(Type.String()),
  contextType: Nullable(Type.String()),
  visibility: Nullable(Type.String()),
  version: Nullable(Type.Integer()),
}
