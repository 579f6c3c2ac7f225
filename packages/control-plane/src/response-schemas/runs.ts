/** Runs on the wire: GET /runs, GET /runs/:runId, GET /runs/:runId/lineage (and the dashboard's recent runs). */
import { type Static, Type } from 'typebox'
import { Nullable, Timestamp } from './common.js'

export const RunStatusShape = Type.Union([
  Type.Literal('running'),
  Type.Literal('completed'),
  Type.Literal('failed'),
  Type.Literal('cancelled'),
])

export const RunShape = Type.Object({
  runId: Type.String(),
  tenantId: Type.String(),
  scenarioId: Type.String(),
  status: RunStatusShape,
  startedAt: Timestamp,
  completedAt: Nullable(Timestamp),
  inputs: Type.Unknown(),
  result: Type.Unknown(),
  // Events of any type correlated into the run.
  eventsCount: Type.Integer(),
  // context_published events of the run.
  contextsCount: Type.Integer(),
  // Registry authorities that delivered events of the run.
  registries: Type.Array(Type.String()),
  updatedAt: Timestamp,
})

/** GET /runs. */
export const RunPageShape = Type.Object({
  data: Type.Array(RunShape),
  total: Type.Integer(),
  limit: Type.Integer(),
  offset: Type.Integer(),
})

/** A run's receipt-audit summary (docs/control-plane/api.md "Receipt audit"). */
export const RunTrustShape = Type.Object({
  audited: Type.Integer({ description: 'publications of the run with a verdict (errors included)' }),
  verified: Type.Integer(),
  verifiedHistorical: Type.Integer({ description: 'verified under a retired receipt key' }),
  structural: Type.Integer({ description: 'signature verified, a binding not recomputable' }),
  noReceipt: Type.Integer(),
  errors: Type.Integer({ description: 'environmental failures (never trust flags)' }),
  flagged: Type.Array(
    Type.Object({
      eventId: Type.String(),
      ctxId: Type.String(),
      status: Type.Literal('discrepancy'),
      discrepancies: Type.Array(Type.String()),
    }),
  ),
})

/** GET /runs/:runId: the run with its receipt-audit summary in `trust`. */
export const RunDetailShape = Type.Object({ ...RunShape.properties, trust: RunTrustShape })

/** GET /runs/:runId/lineage (product spec "Lineage graph"). */
export const LineageShape = Type.Object({
  runId: Type.String(),
  nodes: Type.Array(
    Type.Object({
      ctxId: Type.String(),
      agentId: Type.String(),
      contextType: Type.Union([Type.String(), Type.Null()]),
      visibility: Type.Union([Type.String(), Type.Null()]),
      registryAuthority: Type.String(),
      lineageId: Type.Union([Type.String(), Type.Null()], {
        description: "The context's lineage_id (RFC-ACDP-0001 §5.6); versions sharing it form a supersession chain",
      }),
      version: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], { description: "The context's version" }),
      // 1-based position in event-time order.
      step: Type.Integer(),
      retracted: Type.Boolean(),
      // RFC-ACDP-0004 §4 status (expiry is not known here).
      status: Type.Union([Type.Literal('active'), Type.Literal('superseded'), Type.Literal('retracted')], {
        description: 'retracted > superseded (a later version of the lineage was published here) > active',
      }),
    }),
  ),
  edges: Type.Array(Type.Object({ from: Type.String(), to: Type.String() })),
})

/** A run's status (product spec "Run"). */
export type RunStatus = Static<typeof RunStatusShape>
/** A run on the wire: one run shape for the routes, the services and the clients. */
export type RunView = Static<typeof RunShape>
export type RunPage = Static<typeof RunPageShape>
export type RunDetail = Static<typeof RunDetailShape>
/** The lineage graph of a run (product spec "Lineage graph"), as GET /runs/:runId/lineage serves it. */
export type RunLineage = Static<typeof LineageShape>
export type RunLineageNode = RunLineage['nodes'][number]
