/** Receipt-audit verdicts and totals (RFC-ACDP-0010 §8, run by the control plane over what it ingested). */
import { type Static, Type } from 'typebox'
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
  inLog: Count(
    "publications whose ctx_id the control plane's log reconciliation matched to a leaf of the registry's transparency log (GET /log/entries), for leaves read since migration 0870; the leaf's content is bound by the registry's own receipt, not checked here",
  ),
  underWitnessedHead: Count(
    "of inLog, those whose leaf index is below the tree size of the witness's retained head of that log (a checkpoint whose signature verified and that was consistent with the previous retained head): the leaf's position is under a witnessed head; no inclusion proof of the leaf's hash is checked server-side (the console's per-context inclusion check remains the strongest evidence)",
  ),
  fullyEvidenced: Count(
    "of underWitnessedHead, those whose receipt verified (verdict verified or verified_historical) and, when witness quorum consumption was on at the head's latest observation, whose head met the quorum",
  ),
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

export type AuditSummary = Static<typeof AuditSummaryShape>
