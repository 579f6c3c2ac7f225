/**
 * GET /contexts/search: the enrolled registries' answers, one entry per registry, unmerged; and
 * GET /registries/:authority/lineages/:lineageId: one registry's lineage, relayed unverified.
 */
import { type Static, Type } from 'typebox'

/** One registry's page: its matches as it sent them (RFC-ACDP-0005 §2.2 summaries, relayed unchecked). */
export const RegistrySearchPageShape = Type.Object({
  authority: Type.String(),
  // `ok`: the registry answered 200 with a search response; `error`: see `error`.
  outcome: Type.Union([Type.Literal('ok'), Type.Literal('error')]),
  matches: Type.Array(Type.Unknown(), { description: "The registry's match summaries, as it sent them" }),
  next_cursor: Type.Union([Type.String(), Type.Null()]),
  total_estimate: Type.Union([Type.Integer(), Type.Null()]),
  // Why this registry has no page: the registry's error code, or the transport failure category.
  error: Type.Union([
    Type.Object({ code: Type.String(), message: Type.String(), status: Type.Union([Type.Integer(), Type.Null()]) }),
    Type.Null(),
  ]),
})

export const ContextSearchShape = Type.Object({ registries: Type.Array(RegistrySearchPageShape) })

/** A lineage as its registry serves it, relayed unverified (the reader checks the head receipt). */
export const RelayedLineageShape = Type.Object({
  authority: Type.String(),
  // The registry's envelopes, version ascending, as parsed.
  versions: Type.Array(Type.Unknown()),
  // The `/current` envelope, or null when the registry has no current version (404: all superseded or retracted).
  current: Type.Unknown(),
})

export type RegistrySearchPage = Static<typeof RegistrySearchPageShape>
export type ContextSearchAnswer = Static<typeof ContextSearchShape>
export type RelayedLineage = Static<typeof RelayedLineageShape>
