/**
 * Table shapes of the receipt audit (migration 0800). Same portable conventions as schema.ts: epoch
 * milliseconds, JSON as text.
 */
import type { ContextEventsTable, RegistryEnrollmentsTable } from '../store/schema.js'

/** One audited publication. */
export interface ReceiptAuditsTable {
  /** `context_events.id` of the audited `context_published` event. */
  event_seq: number
  tenant_id: string
  run_id: string | null
  ctx_id: string
  event_id: string | null
  registry_authority: string
  /** One of RECEIPT_VERDICTS. */
  verdict: string
  /** JSON array of discrepancy names (non-empty only for `discrepancy`). */
  discrepancies: string
  /** Why, in a sentence (the failing check, the environmental failure). */
  detail: string | null
  attempts: number
  audited_at: number
  /** `error` only: when the sweep tries again; NULL once final. */
  retry_at: number | null
  acknowledged_at: number | null
  acknowledged_by: string | null
}

/** The sweep's single cursor row and lease. */
export interface ReceiptAuditCursorTable {
  name: string
  last_event_seq: number
  lease_owner: string | null
  lease_until: number
  updated_at: number
}

export interface ReceiptAuditTables {
  receipt_audits: ReceiptAuditsTable
  receipt_audit_cursor: ReceiptAuditCursorTable
  context_events: ContextEventsTable
  registry_enrollments: RegistryEnrollmentsTable
}
