/**
 * Receipt-audit verdicts (RFC-ACDP-0010 §8 run by the control plane over what it ingested; docs/control-plane/
 * api.md "Receipt audit"): the tenant's verdict list, filterable (a `discrepancy` is a trust alert), the totals
 * per registry and per run (the console's trust page, one request), and acknowledgement of a discrepancy (admin).
 * Runs carry their summary in GET /runs/:runId `trust`.
 */
import { Type } from 'typebox'
import { RECEIPT_VERDICTS, type ReceiptVerdict } from '../store/receipt-audit-store.js'
import { acknowledgeDiscrepancy, toVerdictView } from '../services/receipt-audit-views.js'
import type { RoutePlugin } from './route-context.js'

const Timestamp = Type.String({ description: 'RFC 3339 UTC with milliseconds' })
const NullableString = Type.Union([Type.String(), Type.Null()])
const Verdict = Type.Union(RECEIPT_VERDICTS.map((verdict) => Type.Literal(verdict)))

export const VerdictShape = Type.Object({
  eventId: Type.String({ description: 'store id of the audited context_published event (as in GET /events)' }),
  runId: NullableString,
  ctxId: Type.String(),
  registryEventId: Type.Union([Type.String(), Type.Null()], { description: 'the registry-minted event_id' }),
  registryAuthority: Type.String(),
  verdict: Verdict,
  discrepancies: Type.Array(Type.String()),
  detail: NullableString,
  attempts: Type.Integer(),
  auditedAt: Timestamp,
  acknowledgedAt: Type.Union([Timestamp, Type.Null()]),
  acknowledgedBy: NullableString,
})

const ListQuery = Type.Object(
  {
    verdict: Type.Optional(Verdict),
    registry: Type.Optional(Type.String({ minLength: 1, maxLength: 255, pattern: '^[A-Za-z0-9.:-]+$' })),
    runId: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    acknowledged: Type.Optional(Type.Boolean()),
    before: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,15}$', description: 'page before this eventId' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500 })),
  },
  { additionalProperties: false },
)

const Count = (description: string) => Type.Integer({ minimum: 0, description })
const CountsShape = {
  published: Count('context_published events held'),
  audited: Count('of those, publications with a verdict (errors included)'),
  verified: Count('verdict verified'),
  verifiedHistorical: Count('verdict verified_historical (a retired receipt key)'),
  structural: Count('verdict structural'),
  noReceipt: Count('verdict no_receipt'),
  discrepancies: Count('verdict discrepancy'),
  errors: Count('verdict error (environmental, never a trust flag)'),
}
export const SummaryShape = Type.Object({
  registries: Type.Array(
    Type.Object({
      registryAuthority: Type.String(),
      ...CountsShape,
      openDiscrepancies: Count('discrepancies not acknowledged'),
    }),
  ),
  runs: Type.Array(Type.Object({ runId: Type.String(), ...CountsShape }), {
    description: 'the most recently audited runs, newest first',
  }),
})

const EventParams = Type.Object({ eventId: Type.String({ pattern: '^[1-9][0-9]{0,15}$' }) })

export const receiptAuditRoutes: RoutePlugin = async (app, { deps, receiptAudit }) => {
  app.get(
    '/receipt-audit/verdicts',
    {
      schema: {
        tags: ['receipt-audit'],
        summary: "List the tenant's receipt-audit verdicts, newest first (verdict=discrepancy: the trust alerts)",
        querystring: ListQuery,
        response: {
          200: Type.Object({ data: Type.Array(VerdictShape), nextBefore: Type.Union([Type.String(), Type.Null()]) }),
        },
      },
    },
    async (request) => {
      const query = request.query as {
        verdict?: ReceiptVerdict
        registry?: string
        runId?: string
        acknowledged?: boolean
        before?: string
        limit?: number
      }
      const limit = query.limit ?? 100
      const records = await receiptAudit.store.list(request.tenantId, {
        verdict: query.verdict,
        authority: query.registry?.toLowerCase(),
        runId: query.runId,
        acknowledged: query.acknowledged,
        beforeSeq: query.before === undefined ? undefined : Number(query.before),
        limit,
      })
      const last = records.at(-1)
      return {
        data: records.map(toVerdictView),
        nextBefore: records.length === limit && last !== undefined ? String(last.eventSeq) : null,
      }
    },
  )

  app.get(
    '/receipt-audit/summary',
    {
      schema: {
        tags: ['receipt-audit'],
        summary: 'Receipt-audit totals per registry and per recently audited run (the trust page, in one request)',
        querystring: Type.Object(
          { runs: Type.Optional(Type.Integer({ minimum: 0, maximum: 100, description: 'runs listed (default 20)' })) },
          { additionalProperties: false },
        ),
        response: { 200: SummaryShape },
      },
    },
    async (request) => {
      const { runs } = request.query as { runs?: number }
      return receiptAudit.store.summary(request.tenantId, runs ?? 20)
    },
  )

  app.post(
    '/receipt-audit/verdicts/:eventId/ack',
    {
      config: { auth: 'admin' },
      schema: {
        tags: ['receipt-audit'],
        summary: 'Acknowledge a receipt discrepancy (the first acknowledgement is kept)',
        params: EventParams,
        response: { 200: VerdictShape },
      },
    },
    async (request) => {
      const { eventId } = request.params as { eventId: string }
      const actor = request.principal?.actorId ?? 'unknown'
      return acknowledgeDiscrepancy(
        receiptAudit.store,
        request.tenantId,
        Number(eventId),
        actor,
        deps.clock().getTime(),
      )
    },
  )
}
