/**
 * The tenant's receipt-audit totals for the console's trust page: per registry and per recently audited run, the
 * publications held, how many have a verdict, the count of each verdict, and the log evidence the control plane
 * established itself: how many publications the log reconciliation matched to a log leaf (migration 0870), how many
 * of those leaves lie under the witness's retained head (a checkpoint that verified and was consistent with the
 * previous one), and how many are fully evidenced (receipt verified, leaf under that head, and the head met the
 * witness quorum when quorum consumption was on at its latest observation). Aggregates only (a few GROUP BY
 * statements over the tenant's rows), so a page of any size costs one request, never one per context.
 */
import { type Kysely, sql } from 'kysely'
import type { LogLeafMatchesTable } from '../log-reconcile/log-reconcile-store.js'
import type { LogWitnessCheckpointsTable, LogWitnessCursorsTable } from '../witness/witness-schema.js'
import type { ReceiptAuditTables } from './receipt-audit-schema.js'
import type { AuditSummary } from '../response-schemas/receipt-audit.js'
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
  /** Publications whose ctx_id the log reconciliation matched to a leaf of the registry's log. */
  inLog: number
  /** Of those, the ones whose leaf index is below the tree size of the witness's retained head of that log. */
  underWitnessedHead: number
  /** Receipt verified (either verified verdict), leaf under the retained head, and quorum met when it was on. */
  fullyEvidenced: number
}

export interface RegistryAuditSummary extends VerdictCounts {
  registryAuthority: string
  /** Discrepancies nobody has acknowledged yet (the open trust alerts). */
  openDiscrepancies: number
}

export interface RunAuditSummary extends VerdictCounts {
  runId: string
}

export type { AuditSummary }

interface SummaryTables extends ReceiptAuditTables {
  log_leaf_matches: LogLeafMatchesTable
  log_witness_cursors: LogWitnessCursorsTable
  log_witness_checkpoints: LogWitnessCheckpointsTable
}

type Db = Kysely<SummaryTables>

/** The verdicts whose receipt verified (under the current key or a retired one). */
const RECEIPT_VERIFIED: readonly ReceiptVerdict[] = ['verified', 'verified_historical']

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
    inLog: 0,
    underWitnessedHead: 0,
    fullyEvidenced: 0,
  }
}

interface EvidenceRow {
  n: number | string
  in_log: number | string | null
  under_head: number | string | null
  fully: number | string | null
}

function addEvidence(counts: VerdictCounts, row: EvidenceRow): void {
  counts.published = Number(row.n)
  counts.inLog = Number(row.in_log ?? 0)
  counts.underWitnessedHead = Number(row.under_head ?? 0)
  counts.fullyEvidenced = Number(row.fully ?? 0)
}

/**
 * The tenant's `context_published` events, each with its matched leaf (`m`), the witness's retained head of that
 * leaf's log when the leaf lies under it (`w`: same tenant, registry and log id, leaf index < tree size), that
 * head's evidence row (`k`, for its quorum verdict) and the event's receipt verdict (`a`). Left joins on primary
 * or unique keys: one row per publication.
 */
function publicationsWithEvidence(db: Db, tenantId: string) {
  return db
    .selectFrom('context_events as e')
    .leftJoin('log_leaf_matches as m', (join) =>
      join
        .onRef('m.tenant_id', '=', 'e.tenant_id')
        .onRef('m.registry_authority', '=', 'e.registry_authority')
        .onRef('m.ctx_id', '=', 'e.ctx_id'),
    )
    .leftJoin('log_witness_cursors as w', (join) =>
      join
        .onRef('w.authority', '=', 'm.registry_authority')
        .onRef('w.tenant_id', '=', 'm.tenant_id')
        .onRef('w.log_id', '=', 'm.log_id')
        .onRef('m.leaf_index', '<', 'w.tree_size'),
    )
    .leftJoin('log_witness_checkpoints as k', (join) =>
      join
        .onRef('k.tenant_id', '=', 'w.tenant_id')
        .onRef('k.log_id', '=', 'w.log_id')
        .onRef('k.tree_size', '=', 'w.tree_size')
        .onRef('k.root_hash', '=', 'w.root_hash'),
    )
    .leftJoin('receipt_audits as a', (join) =>
      join.onRef('a.event_seq', '=', 'e.id').onRef('a.tenant_id', '=', 'e.tenant_id'),
    )
    .where('e.tenant_id', '=', tenantId)
    .where('e.event_type', '=', 'context_published')
}

/** count(*) and the three evidence sums over `publicationsWithEvidence`. */
function evidenceColumns() {
  // Under the head only with the head's evidence row (written with the head, in one transaction).
  const covered = sql`k.id IS NOT NULL`
  const quorumOk = sql`(k.meets_quorum IS NULL OR k.meets_quorum = 1)`
  const verified = sql`a.verdict IN (${sql.join(RECEIPT_VERIFIED.map((verdict) => sql.lit(verdict)))})`
  return [
    sql<number>`count(*)`.as('n'),
    sql<number>`sum(CASE WHEN m.leaf_index IS NOT NULL THEN 1 ELSE 0 END)`.as('in_log'),
    sql<number>`sum(CASE WHEN ${covered} THEN 1 ELSE 0 END)`.as('under_head'),
    sql<number>`sum(CASE WHEN ${covered} AND ${verified} AND ${quorumOk} THEN 1 ELSE 0 END)`.as('fully'),
  ]
}

function addVerdict(counts: VerdictCounts, verdict: string, n: number): void {
  const member = VERDICT_MEMBER[verdict as ReceiptVerdict]
  if (member !== undefined) counts[member] += n
  counts.audited += n
}

/** Per registry (every authority with a publication or a verdict) and the `runLimit` most recently audited runs. */
export async function readAuditSummary(
  database: Kysely<ReceiptAuditTables>,
  tenantId: string,
  runLimit: number,
): Promise<AuditSummary> {
  // The evidence tables belong to the log reconciliation and the witness (same database, same migrations).
  const db = database as unknown as Db
  const [byRegistry, published, open, recentRuns] = await Promise.all([
    db
      .selectFrom('receipt_audits')
      .select(['registry_authority', 'verdict', sql<number>`count(*)`.as('n')])
      .where('tenant_id', '=', tenantId)
      .groupBy(['registry_authority', 'verdict'])
      .execute(),
    publicationsWithEvidence(db, tenantId)
      .select(['e.registry_authority as registry_authority', ...evidenceColumns()])
      .groupBy('e.registry_authority')
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
  for (const row of published) addEvidence(registry(row.registry_authority), row)
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
      publicationsWithEvidence(db, tenantId)
        .select(['e.run_id as run_id', ...evidenceColumns()])
        .where('e.run_id', 'in', runIds)
        .groupBy('e.run_id')
        .execute(),
    ])
    for (const row of byRun) {
      const entry = row.run_id === null ? undefined : runs.get(row.run_id)
      if (entry !== undefined) addVerdict(entry, row.verdict, Number(row.n))
    }
    for (const row of publishedByRun) {
      const entry = row.run_id === null ? undefined : runs.get(row.run_id)
      if (entry !== undefined) addEvidence(entry, row)
    }
  }
  return {
    registries: [...registries.values()].sort((a, b) => a.registryAuthority.localeCompare(b.registryAuthority)),
    runs: [...runs.values()],
  }
}
