/**
 * ControlPlaneStore over Kysely, one code path for SQLite (node:sqlite) and PostgreSQL (pg).
 *
 * Concurrency design: every counter is moved by `INSERT … ON CONFLICT DO UPDATE SET n = n + k` inside the
 * ingest transaction, so concurrent first events of one run, agent or registry never race (no read-modify-write
 * in the application), and sets (run registries, lineage edges) are rows with a primary key inserted with
 * `ON CONFLICT DO NOTHING`. Ingest writes go through the group-commit writer (event-writer.ts).
 */
import type { Database } from '@acdp/storage'
import { type Kysely, sql } from 'kysely'
import { EventWriter } from './event-writer.js'
import {
  eventKeyPageSql,
  eventPageSql,
  eventsByIdSql,
  runCountSql,
  runPageSql,
  toListedEvent,
  toListedRun,
} from './list-queries.js'
import {
  DASHBOARD_AGGREGATES_SQL,
  DASHBOARD_RECENT_RUNS_SQL,
  dashboardAggregateParams,
  toDashboardAggregates,
} from './dashboard-queries.js'
import { createPreparedReads, type PreparedReads } from './prepared-reads.js'
import type { ContextEventsTable, ControlPlaneTables, RegistryEnrollmentsTable, RunsTable } from './schema.js'
import {
  type AgentQuery,
  type AgentRecord,
  type ControlPlaneStore,
  type ActivityBucket,
  type DashboardAggregates,
  type EnrollmentRecord,
  type EnrollmentSecretRotation,
  type EnrollmentUpsert,
  type EventQuery,
  type EventRecord,
  type EventReplayQuery,
  type EventIdRangeQuery,
  type EventSummary,
  type LineageEdgeRecord,
  type NewEvent,
  type RegistryRecord,
  type RunPublication,
  type RunCompletion,
  type RunQuery,
  type RunRecord,
  type RunStart,
  type RunStatus,
  type StoreTransaction,
  UNKNOWN_SCENARIO,
} from './store.js'

type EventSummaryRow = Omit<ContextEventsTable, 'id' | 'dedup_key' | 'raw_payload'> & { id: number }

/** The event columns stream replay reads: everything but the dedup key and the (possibly large) body. */
const EVENT_SUMMARY_COLUMNS = [
  'id',
  'tenant_id',
  'event_id',
  'event_type',
  'event_ts',
  'received_at',
  'run_id',
  'ctx_id',
  'lineage_id',
  'agent_id',
  'context_type',
  'visibility',
  'version',
  'derived_from',
  'registry_authority',
  'scenario_id',
  'key_fingerprint',
  'receipt_present',
] as const

/** Opens the store on an already-migrated database. The store owns `database` and closes it. */
export function createKyselyStore(database: Database<ControlPlaneTables>): ControlPlaneStore {
  return new KyselyStore(database)
}

class KyselyStore implements ControlPlaneStore {
  readonly #database: Database<ControlPlaneTables>
  readonly #db: Kysely<ControlPlaneTables>
  readonly #writer: EventWriter
  readonly #reads: PreparedReads

  constructor(database: Database<ControlPlaneTables>) {
    this.#database = database
    this.#db = database.db
    this.#writer = new EventWriter(database.db, database.kind, database.pool)
    this.#reads = createPreparedReads(database)
  }

  recordEvent(
    event: NewEvent,
    inTransaction?: (tx: StoreTransaction, id: number) => Promise<void>,
  ): Promise<number | undefined> {
    return this.#writer.record(event, inTransaction)
  }

  async startRun(input: RunStart): Promise<void> {
    await this.#db
      .insertInto('runs')
      .values({
        tenant_id: input.tenantId,
        run_id: input.runId,
        scenario_id: input.scenarioId,
        status: 'running',
        started_at: input.startedAt ?? input.now,
        completed_at: null,
        inputs: input.inputs,
        result: null,
        events_count: 0,
        contexts_count: 0,
        created_at: input.now,
        updated_at: input.now,
      })
      .onConflict((oc) =>
        oc.columns(['tenant_id', 'run_id']).doUpdateSet((eb) => ({
          scenario_id: eb.ref('excluded.scenario_id'),
          // An explicit start time wins over the first event's arrival time; otherwise keep what we have.
          started_at: input.startedAt === null ? eb.ref('runs.started_at') : eb.ref('excluded.started_at'),
          inputs: eb.fn.coalesce('excluded.inputs', 'runs.inputs'),
          updated_at: eb.ref('excluded.updated_at'),
        })),
      )
      .execute()
  }

  async completeRun(input: RunCompletion): Promise<void> {
    await this.#db
      .insertInto('runs')
      .values({
        tenant_id: input.tenantId,
        run_id: input.runId,
        scenario_id: UNKNOWN_SCENARIO,
        status: input.status,
        started_at: input.now,
        completed_at: input.now,
        inputs: null,
        result: input.result,
        events_count: 0,
        contexts_count: 0,
        created_at: input.now,
        updated_at: input.now,
      })
      .onConflict((oc) =>
        oc.columns(['tenant_id', 'run_id']).doUpdateSet((eb) => ({
          status: eb.ref('excluded.status'),
          completed_at: eb.ref('excluded.completed_at'),
          result: eb.ref('excluded.result'),
          updated_at: eb.ref('excluded.updated_at'),
        })),
      )
      .execute()
  }

  async getRun(tenantId: string, runId: string): Promise<RunRecord | undefined> {
    const row = await this.#db
      .selectFrom('runs')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('run_id', '=', runId)
      .executeTakeFirst()
    if (row === undefined) return undefined
    const [run] = await this.#withRegistries(tenantId, [row])
    return run
  }

  async listRuns(query: RunQuery): Promise<{ runs: RunRecord[]; total: number }> {
    const page = runPageSql(this.#database.kind, query)
    const rows = await this.#reads.all(page.sql, page.params)
    if (rows.length === 0) {
      // No row carries the total: it is 0 from the first page, else count separately (a page past the end).
      if (query.offset === 0) return { runs: [], total: 0 }
      const count = runCountSql(query)
      const [row] = await this.#reads.all(count.sql, count.params)
      return { runs: [], total: Number(row?.[0] ?? 0) }
    }
    const runs: RunRecord[] = []
    let total = 0
    for (const row of rows) {
      const listed = toListedRun(row)
      runs.push(listed.run)
      total = listed.total
    }
    return { runs, total }
  }

  async #withRegistries(tenantId: string, rows: RunsTable[]): Promise<RunRecord[]> {
    if (rows.length === 0) return []
    const links = await this.#db
      .selectFrom('run_registries')
      .select(['run_id', 'registry_authority'])
      .where('tenant_id', '=', tenantId)
      .where(
        'run_id',
        'in',
        rows.map((r) => r.run_id),
      )
      .orderBy('registry_authority')
      .execute()
    const byRun = new Map<string, string[]>()
    for (const link of links) {
      const list = byRun.get(link.run_id) ?? []
      list.push(link.registry_authority)
      byRun.set(link.run_id, list)
    }
    return rows.map((row) => toRunRecord(row, byRun.get(row.run_id) ?? []))
  }

  async listRunPublications(tenantId: string, runId: string): Promise<RunPublication[]> {
    const rows = await this.#db
      .selectFrom('context_events as e')
      .leftJoin('context_lifecycle as l', (join) =>
        join.onRef('l.tenant_id', '=', 'e.tenant_id').onRef('l.ctx_id', '=', 'e.ctx_id'),
      )
      .select([
        'e.ctx_id',
        'e.agent_id',
        'e.context_type',
        'e.visibility',
        'e.registry_authority',
        'e.lineage_id',
        'e.version',
        'l.retracted',
      ])
      .select((eb) =>
        eb
          .exists(
            eb
              .selectFrom('context_events as later')
              .select('later.id')
              .whereRef('later.tenant_id', '=', 'e.tenant_id')
              .whereRef('later.lineage_id', '=', 'e.lineage_id')
              .where('later.event_type', '=', 'context_published')
              .whereRef('later.version', '>', 'e.version'),
          )
          .as('superseded'),
      )
      .where('e.tenant_id', '=', tenantId)
      .where('e.run_id', '=', runId)
      .where('e.event_type', '=', 'context_published')
      .where('e.ctx_id', 'is not', null)
      .orderBy('e.event_ts', 'asc')
      .orderBy('e.id', 'asc')
      .execute()
    const seen = new Set<string>()
    const out: RunPublication[] = []
    for (const row of rows) {
      const ctxId = row.ctx_id as string
      if (seen.has(ctxId)) continue
      seen.add(ctxId)
      out.push({
        ctxId,
        agentId: row.agent_id ?? '',
        contextType: row.context_type,
        visibility: row.visibility,
        registryAuthority: row.registry_authority,
        lineageId: row.lineage_id,
        version: row.version === null ? null : Number(row.version),
        retracted: Number(row.retracted ?? 0) === 1,
        // SQLite answers EXISTS with 0/1, PostgreSQL with a boolean.
        superseded: Number(row.superseded) === 1,
      })
    }
    return out
  }

  async listRunEdges(tenantId: string, runId: string): Promise<LineageEdgeRecord[]> {
    const rows = await this.#db
      .selectFrom('lineage_edges')
      .select(['from_ctx_id', 'to_ctx_id'])
      .where('tenant_id', '=', tenantId)
      .where('run_id', '=', runId)
      .orderBy('created_at')
      .orderBy('to_ctx_id')
      .orderBy('from_ctx_id')
      .execute()
    return rows.map((r) => ({ from: r.from_ctx_id, to: r.to_ctx_id }))
  }

  async listEvents(query: EventQuery): Promise<EventRecord[]> {
    const page = eventPageSql(query)
    return (await this.#reads.all(page.sql, page.params)).map(toListedEvent)
  }

  async listEventKeys(query: EventQuery): Promise<Array<{ id: number; eventTs: number }>> {
    const page = eventKeyPageSql(query)
    return (await this.#reads.all(page.sql, page.params)).map((row) => ({
      id: Number(row[0]),
      eventTs: Number(row[1]),
    }))
  }

  async getEventsById(tenantId: string, ids: readonly number[]): Promise<EventRecord[]> {
    if (ids.length === 0) return []
    const list = this.#database.kind === 'postgres' ? `{${ids.join(',')}}` : `[${ids.join(',')}]`
    return (await this.#reads.all(eventsByIdSql(this.#database.kind), [tenantId, list])).map(toListedEvent)
  }

  async listEventsAfterId(query: EventReplayQuery): Promise<EventSummary[]> {
    // Walks the primary key from the resume point, so a replay of recent events touches only the rows after it.
    let q = this.#db
      .selectFrom('context_events')
      .select(EVENT_SUMMARY_COLUMNS)
      .where('id', '>', query.afterId)
      .where('tenant_id', '=', query.tenantId)
    if (query.throughId !== undefined) q = q.where('id', '<=', query.throughId)
    if (query.runId !== undefined) q = q.where('run_id', '=', query.runId)
    const rows = (await q.orderBy('id', 'asc').limit(query.limit).execute()) as EventSummaryRow[]
    return rows.map(toEventSummary)
  }

  async listEventsInIdRange(query: EventIdRangeQuery): Promise<EventSummary[]> {
    const rows = (await this.#db
      .selectFrom('context_events')
      .select(EVENT_SUMMARY_COLUMNS)
      .where('id', '>', query.afterId)
      .where('id', '<', query.beforeId)
      .orderBy('id', 'asc')
      .limit(query.limit)
      .execute()) as EventSummaryRow[]
    return rows.map(toEventSummary)
  }

  async latestEventId(): Promise<number> {
    const row = await this.#db
      .selectFrom('context_events')
      .select((eb) => eb.fn.max('id').as('id'))
      .executeTakeFirst()
    return row?.id === null || row?.id === undefined ? 0 : Number(row.id)
  }

  async getEventSummary(tenantId: string, id: number): Promise<EventSummary | undefined> {
    const row = (await this.#db
      .selectFrom('context_events')
      .select(EVENT_SUMMARY_COLUMNS)
      .where('id', '=', id)
      .where('tenant_id', '=', tenantId)
      .executeTakeFirst()) as EventSummaryRow | undefined
    return row === undefined ? undefined : toEventSummary(row)
  }

  async listAgents(query: AgentQuery) {
    const base = this.#db.selectFrom('agents').where('tenant_id', '=', query.tenantId)
    const [rows, count] = await Promise.all([
      base
        .selectAll()
        .orderBy('last_seen', 'desc')
        .orderBy('agent_did', 'asc')
        .limit(query.limit)
        .offset(query.offset)
        .execute(),
      base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
    ])
    return { agents: rows.map(toAgentRecord), total: Number(count.n) }
  }

  async getAgent(tenantId: string, agentDid: string): Promise<AgentRecord | undefined> {
    const row = await this.#db
      .selectFrom('agents')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .where('agent_did', '=', agentDid)
      .executeTakeFirst()
    return row === undefined ? undefined : toAgentRecord(row)
  }

  async listRegistries(tenantId: string): Promise<RegistryRecord[]> {
    const rows = await this.#db
      .selectFrom('registries')
      .selectAll()
      .where('tenant_id', '=', tenantId)
      .orderBy('last_seen', 'desc')
      .orderBy('authority', 'asc')
      .execute()
    return rows.map((r) => ({
      tenantId: r.tenant_id,
      authority: r.authority,
      baseUrl: r.base_url,
      firstSeen: Number(r.first_seen),
      lastSeen: Number(r.last_seen),
      eventCount: Number(r.event_count),
    }))
  }

  /** Every column of registry_enrollments, for the enrollment reads to narrow. */
  #selectEnrollments() {
    return this.#db.selectFrom('registry_enrollments').selectAll()
  }

  async getEnrollment(authority: string): Promise<EnrollmentRecord | undefined> {
    const row = await this.#selectEnrollments().where('authority', '=', authority).executeTakeFirst()
    return row === undefined ? undefined : toEnrollmentRecord(row)
  }

  async listEnrollments(tenantId: string): Promise<EnrollmentRecord[]> {
    const rows = await this.#selectEnrollments().where('tenant_id', '=', tenantId).orderBy('authority').execute()
    return rows.map(toEnrollmentRecord)
  }

  async listSealedEnrollments(): Promise<EnrollmentRecord[]> {
    const rows = await this.#selectEnrollments()
      .where((eb) =>
        eb.or([
          eb('webhook_secret_sealed', 'is not', null),
          eb('webhook_secret_previous_sealed', 'is not', null),
          eb('read_credential_sealed', 'is not', null),
        ]),
      )
      .orderBy('authority')
      .execute()
    return rows.map(toEnrollmentRecord)
  }

  async upsertEnrollment(input: EnrollmentUpsert): Promise<EnrollmentRecord> {
    const row = await this.#db
      .insertInto('registry_enrollments')
      .values({
        authority: input.authority,
        tenant_id: input.tenantId,
        base_url: input.baseUrl ?? null,
        registry_did: input.registryDid ?? null,
        webhook_secret_sealed: input.webhookSecretSealed ?? null,
        read_credential_sealed: input.readCredentialSealed ?? null,
        enabled: input.enabled === false ? 0 : 1,
        created_at: input.now,
        updated_at: input.now,
      })
      .onConflict((oc) =>
        oc.column('authority').doUpdateSet((eb) => ({
          tenant_id: eb.ref('excluded.tenant_id'),
          // Omitted members keep their stored value; explicit null clears them.
          base_url: input.baseUrl === undefined ? eb.ref('registry_enrollments.base_url') : eb.ref('excluded.base_url'),
          registry_did:
            input.registryDid === undefined
              ? eb.ref('registry_enrollments.registry_did')
              : eb.ref('excluded.registry_did'),
          webhook_secret_sealed:
            input.webhookSecretSealed === undefined
              ? eb.ref('registry_enrollments.webhook_secret_sealed')
              : eb.ref('excluded.webhook_secret_sealed'),
          // A replaced secret ends any rotation in progress: the old pair must not stay valid behind it.
          webhook_secret_previous_sealed:
            input.webhookSecretSealed === undefined
              ? eb.ref('registry_enrollments.webhook_secret_previous_sealed')
              : eb.val(null),
          webhook_secret_previous_expires_at:
            input.webhookSecretSealed === undefined
              ? eb.ref('registry_enrollments.webhook_secret_previous_expires_at')
              : eb.val(null),
          // A kept read credential stays with its tenant: moving the enrollment to another tenant drops it, so
          // the new tenant's callers never read with what was granted to the old one.
          read_credential_sealed:
            input.readCredentialSealed === undefined
              ? eb
                  .case()
                  .when('registry_enrollments.tenant_id', '=', eb.ref('excluded.tenant_id'))
                  .then(eb.ref('registry_enrollments.read_credential_sealed'))
                  .else(null)
                  .end()
              : eb.ref('excluded.read_credential_sealed'),
          enabled: input.enabled === undefined ? eb.ref('registry_enrollments.enabled') : eb.ref('excluded.enabled'),
          updated_at: eb.ref('excluded.updated_at'),
        })),
      )
      .returningAll()
      .executeTakeFirstOrThrow()
    return toEnrollmentRecord(row)
  }

  async replaceSealedSecret(authority: string, expected: string, sealed: string): Promise<boolean> {
    const result = await this.#db
      .updateTable('registry_enrollments')
      .set({ webhook_secret_sealed: sealed })
      .where('authority', '=', authority)
      .where('webhook_secret_sealed', '=', expected)
      .executeTakeFirst()
    return Number(result.numUpdatedRows) === 1
  }

  async replaceSealedPreviousSecret(authority: string, expected: string, sealed: string): Promise<boolean> {
    const result = await this.#db
      .updateTable('registry_enrollments')
      .set({ webhook_secret_previous_sealed: sealed })
      .where('authority', '=', authority)
      .where('webhook_secret_previous_sealed', '=', expected)
      .executeTakeFirst()
    return Number(result.numUpdatedRows) === 1
  }

  async replaceSealedReadCredential(authority: string, expected: string, sealed: string): Promise<boolean> {
    const result = await this.#db
      .updateTable('registry_enrollments')
      .set({ read_credential_sealed: sealed })
      .where('authority', '=', authority)
      .where('read_credential_sealed', '=', expected)
      .executeTakeFirst()
    return Number(result.numUpdatedRows) === 1
  }

  async rotateEnrollmentSecret(input: EnrollmentSecretRotation): Promise<EnrollmentRecord | undefined> {
    const row = await this.#db
      .updateTable('registry_enrollments')
      .set({
        webhook_secret_sealed: input.currentSealed,
        webhook_secret_previous_sealed: input.previousSealed,
        webhook_secret_previous_expires_at: input.previousExpiresAt,
        updated_at: input.now,
      })
      .where('authority', '=', input.authority)
      .where('webhook_secret_sealed', input.expectedCurrentSealed === null ? 'is' : '=', input.expectedCurrentSealed)
      .returningAll()
      .executeTakeFirst()
    return row === undefined ? undefined : toEnrollmentRecord(row)
  }

  async clearPreviousEnrollmentSecret(authority: string, now: number): Promise<EnrollmentRecord | undefined> {
    const row = await this.#db
      .updateTable('registry_enrollments')
      .set({ webhook_secret_previous_sealed: null, webhook_secret_previous_expires_at: null, updated_at: now })
      .where('authority', '=', authority)
      .returningAll()
      .executeTakeFirst()
    return row === undefined ? undefined : toEnrollmentRecord(row)
  }

  async loadActivity(query: { tenantId: string; bucketSince: number }): Promise<ActivityBucket[]> {
    const rows = await this.#db
      .selectFrom('registry_activity')
      .where('tenant_id', '=', query.tenantId)
      .where('bucket_start', '>=', query.bucketSince)
      .select((eb) => [
        'bucket_start',
        eb.fn.sum<number>('event_count').as('event_count'),
        eb.fn.sum<number>('publish_count').as('publish_count'),
      ])
      .groupBy('bucket_start')
      .orderBy('bucket_start', 'asc')
      .execute()
    return rows.map((r) => ({
      bucketStart: Number(r.bucket_start),
      eventCount: Number(r.event_count),
      publishCount: Number(r.publish_count),
    }))
  }

  async loadDashboard(query: { tenantId: string; since: number; bucketSince: number }): Promise<DashboardAggregates> {
    const [aggregateRows, recentRows] = await Promise.all([
      this.#reads.all(DASHBOARD_AGGREGATES_SQL, dashboardAggregateParams(query)),
      this.#reads.all(DASHBOARD_RECENT_RUNS_SQL, [query.tenantId, query.since]),
    ])
    return toDashboardAggregates(aggregateRows, recentRows)
  }

  async ping(): Promise<void> {
    await sql`select 1`.execute(this.#db)
  }

  async close(): Promise<void> {
    await this.#database.close()
  }
}

function toRunRecord(row: RunsTable, registries: string[]): RunRecord {
  return {
    tenantId: row.tenant_id,
    runId: row.run_id,
    scenarioId: row.scenario_id,
    status: row.status as RunStatus,
    startedAt: Number(row.started_at),
    completedAt: row.completed_at === null ? null : Number(row.completed_at),
    inputsJson: row.inputs,
    resultJson: row.result,
    eventsCount: Number(row.events_count),
    contextsCount: Number(row.contexts_count),
    registries,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  }
}

function toEventSummary(row: EventSummaryRow): EventSummary {
  return {
    id: Number(row.id),
    tenantId: row.tenant_id,
    eventId: row.event_id,
    type: row.event_type,
    eventTs: Number(row.event_ts),
    receivedAt: Number(row.received_at),
    runId: row.run_id,
    ctxId: row.ctx_id,
    lineageId: row.lineage_id,
    agentId: row.agent_id,
    contextType: row.context_type,
    visibility: row.visibility,
    version: row.version === null ? null : Number(row.version),
    derivedFrom: JSON.parse(row.derived_from) as string[],
    registryAuthority: row.registry_authority,
    scenarioId: row.scenario_id,
    keyFingerprint: row.key_fingerprint,
    receiptPresent: Number(row.receipt_present) === 1,
  }
}

function toAgentRecord(row: ControlPlaneTables['agents']): AgentRecord {
  return {
    tenantId: row.tenant_id,
    agentDid: row.agent_did,
    firstSeen: Number(row.first_seen),
    lastSeen: Number(row.last_seen),
    registryAuthority: row.registry_authority,
    eventCount: Number(row.event_count),
    contextCount: Number(row.context_count),
  }
}

function toEnrollmentRecord(row: RegistryEnrollmentsTable): EnrollmentRecord {
  return {
    authority: row.authority,
    tenantId: row.tenant_id,
    baseUrl: row.base_url,
    registryDid: row.registry_did,
    webhookSecretSealed: row.webhook_secret_sealed,
    previousWebhookSecretSealed: row.webhook_secret_previous_sealed,
    previousWebhookSecretExpiresAt:
      row.webhook_secret_previous_expires_at === null ? null : Number(row.webhook_secret_previous_expires_at),
    readCredentialSealed: row.read_credential_sealed,
    enabled: Number(row.enabled) === 1,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  }
}
