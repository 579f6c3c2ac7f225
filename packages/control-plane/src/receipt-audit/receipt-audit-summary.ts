/**
 * The tenant's receipt-audit totals for the console's trust page: per registry and per recently audited run, the
 * publications held, how many have a verdict, and the count of each verdict. Aggregates only (a few GROUP BY
 * statements over the tenant's rows), so a page of any size costs one request, never one per context.
 */
import { type Kysely, sql } from 'kysely'
import type { ReceiptAuditTables } from './receipt-audit-schema.js'
import type { ReceiptVerdict } from './receipt-audit-store.js'

/** Verdict counts of a set of publications. */
export interface VerdictCounts {
  /** `context_published` events the control plane holds. */
  published: number
  /** Of those, the ones with a verdict (errors included). */
  audited: number
  verified: number
  verifiedHistorical: number
  structural: number
  noReceipt: number
  discrepancies: number
  errors: number
}

export interface RegistryAuditSummary extends VerdictCounts {
  registryAuthority: string
  /** Discrepancies nobody has acknowledged yet (the open trust alerts). */
  openDiscrepancies: number
}

export interface RunAuditSummary extends VerdictCounts {
  runId: string
}

export interface AuditSummary {
  registries: RegistryAuditSummary[]
  runs: RunAuditSummary[]
}

type Db = Kysely<ReceiptAuditTables>

const VERDICT_MEMBER: Record<ReceiptVerdict, keyof VerdictCounts> = {
  verified: 'verified',
  verified_historical: 'verifiedHistorical',
  structural: 'structural',
  discrepancy: 'discrepancies',
  no_receipt: 'noReceipt',
  error: 'errors',
}

function emptyCounts(): VerdictCounts {
  return {
    published: 0,
    audited: 0,
    verified: 0,
    verifiedHistorical: 0,
    structural: 0,
    noReceipt: 0,
    discrepancies: 0,
    errors: 0,
  }
}

function addVerdict(counts: VerdictCounts, verdict: string, n: number): void {
  const member = VERDICT_MEMBER[verdict as ReceiptVerdict]
  if (member !== undefined) counts[member] += n
  counts.audited += n
}

/** Per registry (every authority with a publication or a verdict) and the `runLimit` most recently audited runs. */
export async function readAuditSummary(db: Db, tenantId: string, runLimit: number): Promise<AuditSummary> {
  const [byRegistry, published, open, recentRuns] = await Promise.all([
    db
      .selectFrom('receipt_audits')
      .select(['registry_authority', 'verdict', sql<number>`count(*)`.as('n')])
      .where('tenant_id', '=', tenantId)
      .groupBy(['registry_authority', 'verdict'])
      .execute(),
    db
      .selectFrom('context_events')
      .select(['registry_authority', sql<number>`count(*)`.as('n')])
      .where('tenant_id', '=', tenantId)
      .where('event_type', '=', 'context_published')
      .groupBy('registry_authority')
      .execute(),
    db
      .selectFrom('receipt_audits')
      .select(['registry_authority', sql<number>`count(*)`.as('n')])
      .where('tenant_id', '=', tenantId)
      .where('verdict', '=', 'discrepancy')
      .where('acknowledged_at', 'is', null)
      .groupBy('registry_authority')
      .execute(),
    runLimit === 0
      ? Promise.resolve([])
      : db
          .selectFrom('receipt_audits')
          .select(['run_id', sql<number>`max(event_seq)`.as('latest')])
          .where('tenant_id', '=', tenantId)
          .where('run_id', 'is not', null)
          .groupBy('run_id')
          .orderBy('latest', 'desc')
          .limit(runLimit)
          .execute(),
  ])

  const registries = new Map<string, RegistryAuditSummary>()
  const registry = (authority: string) => {
    let entry = registries.get(authority)
    if (entry === undefined) {
      entry = { registryAuthority: authority, ...emptyCounts(), openDiscrepancies: 0 }
      registries.set(authority, entry)
    }
    return entry
  }
  for (const row of published) registry(row.registry_authority).published = Number(row.n)
  for (const row of byRegistry) addVerdict(registry(row.registry_authority), row.verdict, Number(row.n))
  for (const row of open) registry(row.registry_authority).openDiscrepancies = Number(row.n)

  const runIds = recentRuns.map((row) => row.run_id).filter((id): id is string => id !== null)
  const runs = new Map(runIds.map((runId): [string, RunAuditSummary] => [runId, { runId, ...emptyCounts() }]))
  if (runIds.length > 0) {
    const [byRun, publishedByRun] = await Promise.all([
      db
        .selectFrom('receipt_audits')
        .select(['run_id', 'verdict', sql<number>`count(*)`.as('n')])
        .where('tenant_id', '=', tenantId)
        .where('run_id', 'in', runIds)
        .groupBy(['run_id', 'verdict'])
        .execute(),
      db
        .selectFrom('context_events')
        .select(['run_id', sql<number>`count(*)`.as('n')])
        .where('tenant_id', '=', tenantId)
        .where('run_id', 'in', runIds)
        .where('event_type', '=', 'context_published')
        .groupBy('run_id')
        .execute(),
    ])
    for (const row of byRun) {
      const entry = row.run_id === null ? undefined : runs.get(row.run_id)
      if (entry !== undefined) addVerdict(entry, row.verdict, Number(row.n))
    }
    for (const row of publishedByRun) {
      const entry = row.run_id === null ? undefined : runs.get(row.run_id)
      if (entry !== undefined) entry.published = Number(row.n)
    }
  }
  return {
    registries: [...registries.values()].sort((a, b) => a.registryAuthority.localeCompare(b.registryAuthority)),
    runs: [...runs.values()],
  }
}
