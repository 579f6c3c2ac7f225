/**
 * The Trust page's reads: four requests for the whole tenant plus one witness-state read per enrolled registry —
 * never one per context or per run (GET /receipt-audit/summary aggregates on the server).
 */
import { type ApiClient, ApiError } from '../api/client.js'
import type { Enrollment, EnrollmentList, WitnessAlert, WitnessAlertList } from '../api/types.js'
import type { AuditSummary, AuditVerdictPage, WitnessHeadState } from '../api/trust-types.js'

/** Runs listed on the page (the most recently audited). */
export const TRUST_RUNS = 20
/** Failed contexts listed (the newest discrepancies). */
export const TRUST_FAILED = 50

export interface TrustData {
  summary: AuditSummary
  enrollments: Enrollment[]
  failed: AuditVerdictPage
  /** null when the control plane does not serve the witness. */
  alerts: WitnessAlert[] | null
  /** Per enrolled authority; null: not witnessed. null map: the witness is not served. */
  witness: Map<string, WitnessHeadState | null> | null
}

/** `load`, or null when the route answers 404 (an optional feature, or a registry that is not witnessed). */
async function orAbsent<T>(load: Promise<T>): Promise<T | null> {
  try {
    return await load
  } catch (error) {
    if (error instanceof ApiError && error.isNotFound) return null
    throw error
  }
}

export async function loadTrust(client: ApiClient): Promise<TrustData> {
  const [summary, enrollments, failed, alerts] = await Promise.all([
    client.get<AuditSummary>('/receipt-audit/summary', { runs: TRUST_RUNS }),
    client.get<EnrollmentList>('/registries/enrollments'),
    client.get<AuditVerdictPage>('/receipt-audit/verdicts', { verdict: 'discrepancy', limit: TRUST_FAILED }),
    orAbsent(client.get<WitnessAlertList>('/registries/log-witness/alerts')),
  ])
  let witness: Map<string, WitnessHeadState | null> | null = null
  if (alerts !== null) {
    const states = await Promise.all(
      enrollments.data.map(async (e) => {
        const path = `/registries/${encodeURIComponent(e.authority)}/log-witness`
        return [e.authority, await orAbsent(client.get<WitnessHeadState>(path))] as const
      }),
    )
    witness = new Map(states)
  }
  return { summary, enrollments: enrollments.data, failed, alerts: alerts?.data ?? null, witness }
}
