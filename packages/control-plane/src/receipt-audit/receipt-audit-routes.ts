/**
 * Receipt-audit verdicts (RFC-ACDP-0010 §8 run by the control plane over what it ingested; docs/control-plane/
 * api.md "Receipt audit"): the tenant's verdict list, filterable (a `discrepancy` is a trust alert), the totals
 * per registry and per run (the console's trust page, one request), and acknowledgement of a discrepancy (admin).
 * Runs carry their summary in GET /runs/:runId `trust`.
 */
import { type Static, Type } from 'typebox'
import type { ReceiptVerdict } from './receipt-audit-store.js'
import { acknowledgeDiscrepancy, toVerdictView } from './receipt-audit-views.js'
import {
  AuditSummaryShape,
  AuditVerdictPageShape,
  AuditVerdictShape,
  ReceiptVerdictShape as Verdict,
} from '../response-schemas/receipt-audit.js'
import type { RoutePlugin } from '../core/route-context.js'

// The served verdicts are the stored ones: the schema's list and the store's must name the same verdicts.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
const verdictsAgree: Same<Static<typeof Verdict>, ReceiptVerdict> = true
void verdictsAgree

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
          200: AuditVerdictPageShape,
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
        summary:
          'Receipt-audit and log-evidence totals per registry and per recently audited run (the trust page, in one request)',
        querystring: Type.Object(
          { runs: Type.Optional(Type.Integer({ minimum: 0, maximum: 100, description: 'runs listed (default 20)' })) },
          { additionalProperties: false },
        ),
        response: { 200: AuditSummaryShape },
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
        response: { 200: AuditVerdictShape },
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
