/** Receipt-audit verdicts and totals (RFC-ACDP-0010 §8, run by the control plane over what it ingested). */
import { Type } from 'typebox'
import { NullableString, Timestamp } from './common.js'

/**
 * The verdicts, in the order the store declares them (receipt-audit/receipt-audit-store.ts RECEIPT_VERDICTS; the route
 * file checks at compile time that both lists name the same verdicts).
 */
export const ReceiptVerdictShape = Type.Union([
  Type.Literal('verified'),
  Type.Literal('verified_historical'),
  Type.Literal('structural'),
  Type.Literal('discrepancy'),
  Type.Literal('no_receipt'),
  Type.Literal('error'),
])

export const AuditVerdictShape = Type.Object({
  eventId: Type.String({ description: 'store id of the audited context_published event (as in GET /events)' }),
  runId: NullableString,
  ctxId: Type.String(),
  registryEventId: Type.Union([Type.String(), Type.Null()], { description: 'the registry-minted event_id' }),
  registryAuthority: Type.String(),
  verdict: ReceiptVerdictShape,
  discrepancies: Type.Array(Type.String()),
  detail: NullableString,
  attempts: Type.Integer(),
  auditedAt: Timestamp,
  acknowledgedAt: Type.Union([Timestamp, Type.Null()]),
  acknowledgedBy: NullableString,
})

/** GET /receipt-audit/verdicts. */
export const AuditVerdictPageShape = Type.Object({
  data: Type.Array(AuditVerdictShape),
  nextBefore: Type.Union([Type.String(), Type.Null()]),
})

const Count = (description: string) => Type.Integer({ minimum: 0, description })

/** Verdict counts of a set of publications. */
export const AuditCountsShape = Type.Object({
  published: Count('context_published events held'),
  audited: Count('of those, publications with a verdict (errors included)'),
  verified: Count('verdict verified'),
  verifiedHistorical: Count('verdict verified_historical (a retired receipt key)'),
  structural: Count('verdict structural'),
  noReceipt: Count('verdict no_receipt'),
  discrepancies: Count('verdict discrepancy'),
  errors: Count('verdict error (environmental, never a trust flag)'),
})

export const RegistryAuditTotalsShape = Type.Object({
  registryAuthority: Type.String(),
  ...AuditCountsShape.properties,
  openDiscrepancies: Count('discrepancies not acknowledged'),
})

export const RunAuditTotalsShape = Type.Object({ runId: Type.String(), ...AuditCountsShape.properties })

/** GET /receipt-audit/summary. */
export const AuditSummaryShape = Type.Object({
  registries: Type.Array(RegistryAuditTotalsShape),
  runs: Type.Array(RunAuditTotalsShape, { description: 'the most recently audited runs, newest first' }),
})
