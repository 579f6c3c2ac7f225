/** GET /contexts/search: the enrolled registries' answers, one entry per registry, unmerged. */
import { Type } from 'typebox'

/** One registry's page: its matches as it sent them (RFC-ACDP-0005 §2.2 summaries, relayed unchecked). */
export const RegistrySearchPageShape = Type.Object({
  authority: Type.String(),
  outcome: Type.Union([Type.Literal('ok'), Type.Literal('error')]),
  matches: Type.Array(Type.Unknown(), { description: "The registry's match summaries, as it sent them" }),
  next_cursor: Type.Union([Type.String(), Type.Null()]),
  total_estimate: Type.Union([Type.Integer(), Type.Null()]),
  error: Type.Union([
    Type.Object({ code: Type.String(), message: Type.String(), status: Type.Union([Type.Integer(), Type.Null()]) }),
    Type.Null(),
  ]),
})

export const ContextSearchShape = Type.Object({ registries: Type.Array(RegistrySearchPageShape) })
