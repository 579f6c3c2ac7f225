/**
 * Group commit for ingest: concurrent `recordEvent` calls are written together in ONE transaction.
 *
 * Why: on SQLite every commit rewrites the touched pages of eight indexes into the WAL, and on PostgreSQL every
 * event of one registry or run updates the same counter rows, so one transaction per event is bounded by commit
 * cost and hot-row lock hand-offs: each waiting writer holds the counter row's lock until its own commit's fsync,
 * so concurrent ingests queue one commit at a time. A batch pays both once.
 *
 * What stays true per event: its row and all its projections commit together or not at all, and it is
 * acknowledged only after that commit. A batch is written as: one multi-row event insert (dedup by ON CONFLICT
 * DO NOTHING), one multi-row lineage-edge insert, the lifecycle upserts, each event's in-transaction hook, then
 * one multi-row upsert per counter table with the batch's increments pre-aggregated per key (keys sorted, so
 * concurrent writers on other instances lock rows in the same order). If anything in a batch fails, the batch is
 * rolled back and each event is retried alone, so one bad event (a failing hook) never fails its neighbours.
 * On PostgreSQL a batch is one statement (store/pg-event-batch.ts), and a batch none of whose events has a hook
 * is that statement alone, without BEGIN/COMMIT: one statement is atomic, so this is the same guarantee.
 *
 * One batch is in flight at a time per store; events arriving meanwhile form the next batch, so batches grow
 * with load and a lone event waits only for the current event-loop turn. Store ids therefore increase in
 * commit order on one instance. Several batches in flight were measured on PostgreSQL (docs/performance/journal.md,
 * "Control-plane ingest on PostgreSQL: batches in flight") and ingested less: most of the process's CPU per
 * event is a per-batch cost, so smaller concurrent batches cost more CPU per event, and they queued on the
 * shared registry and rollup rows.
 */
import type { DatabaseKind } from '@acdp/storage'
import { Kysely, PostgresDialect, type QueryCreator, sql } from 'kysely'
import type pg from 'pg'
import {
  EVENT_BATCH_DUPLICATE_SQLSTATE,
  EVENT_BATCH_SQL,
  EVENT_BATCH_STATEMENT,
  type EventBatchResult,
  type EventBatchRows,
  eventBatchParams,
} from './pg-event-batch.js'
import type { ControlPlaneTables } from './schema.js'
import { type NewEvent, type StoreTransaction, UNKNOWN_SCENARIO } from './store.js'

/** Most events written in one transaction (bounded by SQL parameter limits: 19 per event row). */
export const MAX_BATCH_EVENTS = 256

type Hook = ((tx: StoreTransaction, id: number) => Promise<void>) | undefined

interface Pending {
  event: NewEvent
  hook: Hook
  resolve(id: number | undefined): void
  reject(error: unknown): void
}

/** Queues events and writes them in batches on `db`. */
export class EventWriter {
  readonly #db: Kysely<ControlPlaneTables>
  readonly #kind: DatabaseKind
  readonly #pool: pg.Pool | undefined
  /** Per pooled PostgreSQL connection: a Kysely bound to it, for the hooks of a batch written on it. */
  readonly #connectionDbs = new WeakMap<pg.PoolClient, Kysely<ControlPlaneTables>>()
  #queue: Pending[] = []
  #isWriting = false

  /** `pool`: PostgreSQL's pool, for the one-statement batch (store/pg-event-batch.ts). */
  constructor(db: Kysely<ControlPlaneTables>, kind: DatabaseKind, pool?: pg.Pool) {
    this.#db = db
    this.#kind = kind
    this.#pool = kind === 'postgres' ? pool : undefined
  }

  /** Resolves with the new id, or undefined for a duplicate, once the event's transaction committed. */
  record(event: NewEvent, hook: Hook): Promise<number | undefined> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ event, hook, resolve, reject })
      if (!this.#isWriting) {
        this.#isWriting = true
        // Start on the check phase: requests whose bodies arrived in the same poll phase join this batch
        // (SQLite calls complete synchronously, so starting at once would always write batches of one).
        setImmediate(() => void this.#drain())
      }
    })
  }

  async #drain(): Promise<void> {
    try {
      while (this.#queue.length > 0) {
        const batch = this.#queue.splice(0, MAX_BATCH_EVENTS)
        let ids: Array<number | undefined>
        try {
          ids = await this.#writeBatch(batch)
        } catch (error) {
          if (batch.length === 1) {
            batch[0]?.reject(error)
            continue
          }
          // Isolate the failure: every event gets its own transaction and its own outcome.
          for (const item of batch) {
            try {
              const [id] = await this.#writeBatch([item])
              item.resolve(id)
            } catch (itemError) {
              item.reject(itemError)
            }
          }
          continue
        }
        batch.forEach((item, index) => {
          item.resolve(ids[index])
        })
      }
    } finally {
      this.#isWriting = false
    }
  }

  /** Writes `batch` in one transaction; returns each event's new id (undefined: duplicate). */
  async #writeBatch(batch: Pending[]): Promise<Array<number | undefined>> {
    if (this.#pool !== undefined && isStatementBatch(batch)) {
      const ids = await this.#writeStatementBatch(this.#pool, batch)
      if (ids !== undefined) return ids
    }
    return this.#db.transaction().execute(async (tx) => {
      const ids = await insertEvents(tx, batch)
      const inserted = batch.filter((_, index) => ids[index] !== undefined)
      if (inserted.length === 0) return ids
      // Lifecycle rows in key order (stable: one context's events keep their batch order), like every other row,
      // so batches of two instances lock them in one order.
      const lifecycle = inserted.filter((item) => item.event.lifecycle !== null && item.event.ctxId !== null)
      lifecycle.sort((a, b) => compareKeys(lifecycleKey(a.event), lifecycleKey(b.event)))
      for (const item of lifecycle) await upsertLifecycle(tx, item.event)
      for (let index = 0; index < batch.length; index++) {
        const item = batch[index] as Pending
        const id = ids[index]
        if (id !== undefined && item.hook) await item.hook(tx, id)
      }
      const events = inserted.map((item) => item.event)
      // Projections in a fixed table order (deadlock-free across instances), hot counter rows last.
      const writes = [
        ...lineageEdgeWrites(lineageEdgeRows(events)),
        agentWrite(agentRows(events)),
        runWrite(runRows(events)),
        runRegistryWrite(runRegistryRows(events)),
        registryWrite(registryRows(events)),
        activityWrite(activityRows(events)),
        didMethodWrite(didMethodRows(events)),
      ].filter((write): write is ProjectionWrite => write !== undefined)
      await applyWrites(tx, this.#kind, writes)
      return ids
    })
  }

  /**
   * PostgreSQL: the batch as one prepared statement (store/pg-event-batch.ts). Undefined (nothing written) when
   * an event was a duplicate of a stored one: the statement's projections counted it, so it aborts itself and the
   * caller writes the batch the general way.
   *
   * A batch without hooks is the statement alone, committed on its own (autocommit): one round trip instead of
   * BEGIN, statement, COMMIT, and no transaction left idle between them while this process is busy. One statement
   * is atomic and, with synchronous_commit as configured for every other write, durable when it returns, so each
   * event still commits with all its projections or not at all before it is acknowledged. A batch with hooks
   * runs them in a transaction with the statement.
   */
  async #writeStatementBatch(pool: pg.Pool, batch: Pending[]): Promise<Array<number | undefined> | undefined> {
    // Event rows in dedup-key order, projections folded in batch order (as the general path does).
    const events = batch.map((item) => item.event)
    const rows: EventBatchRows = {
      events: dedupOrder(batch).map((index) => eventRow((batch[index] as Pending).event)),
      lineageEdges: lineageEdgeRows(events),
      agents: agentRows(events),
      runs: runRows(events),
      runRegistries: runRegistryRows(events),
      registries: registryRows(events),
      activity: activityRows(events),
      didMethods: didMethodRows(events),
    }
    const statement = {
      name: EVENT_BATCH_STATEMENT,
      text: EVENT_BATCH_SQL,
      values: eventBatchParams(UNKNOWN_SCENARIO, rows),
      rowMode: 'array' as const,
    }
    const idsOf = (result: pg.QueryResult<EventBatchResult>): Array<number | undefined> => {
      const [, ids, tenantIds, dedupKeys] = result.rows[0] as EventBatchResult
      const idByKey = new Map(ids.map((id, index) => [keyOf(tenantIds[index]!, dedupKeys[index]!), Number(id)]))
      return batch.map((item) => idByKey.get(keyOf(item.event.tenantId, item.event.dedupKey)))
    }
    if (batch.every((item) => item.hook === undefined)) {
      try {
        return idsOf(await pool.query<EventBatchResult>(statement))
      } catch (error) {
        if (isDuplicateAbort(error)) return undefined
        throw error
      }
    }
    const client = await pool.connect()
    try {
      await client.query('BEGIN')
    } catch (error) {
      client.release(true)
      throw error
    }
    // A connection that cannot even roll back is discarded, not handed to the next batch.
    let isBroken = false
    try {
      let ids: Array<number | undefined>
      try {
        ids = idsOf(await client.query<EventBatchResult>(statement))
      } catch (error) {
        if (!isDuplicateAbort(error)) throw error
        await client.query('ROLLBACK')
        return undefined
      }
      const tx = this.#connectionDb(client)
      for (let index = 0; index < batch.length; index++) {
        const hook = (batch[index] as Pending).hook
        if (hook) await hook(tx, ids[index] as number)
      }
      await client.query('COMMIT')
      return ids
    } catch (error) {
      await client.query('ROLLBACK').catch(() => {
        isBroken = true
      })
      throw error
    } finally {
      client.release(isBroken ? true : undefined)
    }
  }

  /** A Kysely running on `client` only (its release is a no-op: the batch releases the client). */
  #connectionDb(client: pg.PoolClient): Kysely<ControlPlaneTables> {
    let db = this.#connectionDbs.get(client)
    if (db === undefined) {
      const bound = {
        query: client.query.bind(client),
        release: () => {},
      }
      db = new Kysely<ControlPlaneTables>({
        dialect: new PostgresDialect({ pool: { connect: async () => bound, end: async () => {} } as never }),
      })
      this.#connectionDbs.set(client, db)
    }
    return db
  }
}

/**
 * Whether a batch can be the one statement: no lifecycle event (their projection is conditional on stored
 * state; they are rare) and no dedup key twice (the second is a duplicate of the first).
 */
function isStatementBatch(batch: Pending[]): boolean {
  const keys = new Set<string>()
  for (const { event } of batch) {
    if (event.lifecycle !== null) return false
    const key = keyOf(event.tenantId, event.dedupKey)
    if (keys.has(key)) return false
    keys.add(key)
  }
  return true
}

/** One projection statement of a batch, built on the transaction (or inside a CTE on PostgreSQL). */
type ProjectionWrite = (qc: QueryCreator<ControlPlaneTables>) => { execute(): Promise<unknown> }

/**
 * Runs the projection statements. PostgreSQL runs them as data-modifying CTEs of ONE statement (one round trip
 * instead of one per table; all CTEs execute even when unreferenced); SQLite runs them one by one (in-process
 * calls, no round trip to save).
 */
async function applyWrites(
  tx: Kysely<ControlPlaneTables>,
  kind: DatabaseKind,
  writes: ProjectionWrite[],
): Promise<void> {
  if (kind !== 'postgres' || writes.length === 1) {
    for (const write of writes) await write(tx).execute()
    return
  }
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- a chain of differently-typed CTEs; each member is typed where built
  let query: any = tx
  writes.forEach((write, index) => {
    // eslint-disable-next-line @typescript-eslint/no-explicit-any -- see above
    query = query.with(`w${index}`, (qc: QueryCreator<ControlPlaneTables>) => write(qc) as any)
  })
  await query.selectNoFrom(sql<number>`1`.as('done')).execute()
}

const keyOf = (tenantId: string, dedupKey: string) => `${tenantId}\u0000${dedupKey}`

/** The batch statement refused itself because an event was already stored (see pg-event-batch.ts). */
const isDuplicateAbort = (error: unknown): boolean =>
  (error as { code?: unknown } | null)?.code === EVENT_BATCH_DUPLICATE_SQLSTATE
const lifecycleKey = (event: NewEvent) => `${event.tenantId}\u0000${event.ctxId ?? ''}`
const compareKeys = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/**
 * The batch's indexes in dedup-key order: concurrent writers (other instances) then wait on duplicate keys in one
 * order. Stable: equal keys keep their batch order, so the first of them gets the id.
 */
function dedupOrder(batch: Pending[]): number[] {
  const order = batch.map((_, index) => index)
  order.sort((a, b) => {
    const ka = keyOf((batch[a] as Pending).event.tenantId, (batch[a] as Pending).event.dedupKey)
    const kb = keyOf((batch[b] as Pending).event.tenantId, (batch[b] as Pending).event.dedupKey)
    return ka < kb ? -1 : ka > kb ? 1 : a - b
  })
  return order
}

/** An event's row. */
function eventRow(event: NewEvent): Omit<ControlPlaneTables['context_events'], 'id'> {
  return {
    tenant_id: event.tenantId,
    dedup_key: event.dedupKey,
    event_id: event.eventId,
    event_type: event.type,
    event_ts: event.eventTs,
    received_at: event.receivedAt,
    run_id: event.runId,
    ctx_id: event.ctxId,
    lineage_id: event.lineageId,
    agent_id: event.agentId,
    context_type: event.contextType,
    visibility: event.visibility,
    version: event.version,
    derived_from: JSON.stringify(event.derivedFrom),
    registry_authority: event.registryAuthority,
    scenario_id: event.scenarioId,
    key_fingerprint: event.keyFingerprint,
    receipt_present: event.receiptPresent ? 1 : 0,
    raw_payload: event.rawPayload,
  }
}

/** Inserts the batch's event rows in one statement; the first event per dedup key gets the id. */
async function insertEvents(tx: Kysely<ControlPlaneTables>, batch: Pending[]): Promise<Array<number | undefined>> {
  const rows = await tx
    .insertInto('context_events')
    .values(dedupOrder(batch).map((index) => eventRow((batch[index] as Pending).event)))
    .onConflict((oc) => oc.columns(['tenant_id', 'dedup_key']).doNothing())
    .returning(['id', 'tenant_id', 'dedup_key'])
    .execute()
  const idByKey = new Map(rows.map((row) => [keyOf(row.tenant_id, row.dedup_key), Number(row.id)]))
  return batch.map((item) => {
    const key = keyOf(item.event.tenantId, item.event.dedupKey)
    const id = idByKey.get(key)
    // A second event with the same key in this batch is a duplicate of the first.
    idByKey.delete(key)
    return id
  })
}

/** Lineage edges of the batch's publications, in key order. */
function lineageEdgeRows(events: NewEvent[]): Array<ControlPlaneTables['lineage_edges']> {
  const edges = new Map<string, ControlPlaneTables['lineage_edges']>()
  for (const event of events) {
    if (!event.isPublish || event.ctxId === null) continue
    for (const from of event.derivedFrom) {
      const key = `${event.tenantId}\u0000${from}\u0000${event.ctxId}`
      if (!edges.has(key)) {
        edges.set(key, {
          tenant_id: event.tenantId,
          from_ctx_id: from,
          to_ctx_id: event.ctxId,
          run_id: event.runId,
          created_at: event.receivedAt,
        })
      }
    }
  }
  return [...edges.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, row]) => row)
}

/** Inserts `rows` in chunks of at most 1000. */
function lineageEdgeWrites(rows: Array<ControlPlaneTables['lineage_edges']>): ProjectionWrite[] {
  const writes: ProjectionWrite[] = []
  for (let start = 0; start < rows.length; start += 1000) {
    const chunk = rows.slice(start, start + 1000)
    writes.push((qc) =>
      qc
        .insertInto('lineage_edges')
        .values(chunk)
        .onConflict((oc) => oc.doNothing()),
    )
  }
  return writes
}

async function upsertLifecycle(tx: Kysely<ControlPlaneTables>, event: NewEvent): Promise<void> {
  if (event.lifecycle === null || event.ctxId === null) return
  const { retracted, actor, reason } = event.lifecycle
  await tx
    .insertInto('context_lifecycle')
    .values({
      tenant_id: event.tenantId,
      ctx_id: event.ctxId,
      lineage_id: event.lineageId,
      retracted: retracted ? 1 : 0,
      retracted_at: retracted ? event.eventTs : null,
      republished_at: retracted ? null : event.eventTs,
      actor,
      reason,
      last_event_at: event.eventTs,
      updated_at: event.receivedAt,
    })
    .onConflict((oc) =>
      oc
        .columns(['tenant_id', 'ctx_id'])
        .doUpdateSet((eb) => ({
          lineage_id: eb.fn.coalesce('excluded.lineage_id', 'context_lifecycle.lineage_id'),
          retracted: eb.ref('excluded.retracted'),
          retracted_at: eb.fn.coalesce('excluded.retracted_at', 'context_lifecycle.retracted_at'),
          republished_at: eb.fn.coalesce('excluded.republished_at', 'context_lifecycle.republished_at'),
          actor: eb.ref('excluded.actor'),
          reason: eb.ref('excluded.reason'),
          last_event_at: eb.ref('excluded.last_event_at'),
          updated_at: eb.ref('excluded.updated_at'),
        }))
        // Lifecycle events can arrive out of order; only a newer event moves the projection.
        .where('context_lifecycle.last_event_at', '<=', (eb) => eb.ref('excluded.last_event_at')),
    )
    .execute()
}

/** Groups `events` by `key`, folding each group with `fold`; returns the groups sorted by key. */
function aggregate<T>(
  events: NewEvent[],
  key: (e: NewEvent) => string | undefined,
  fold: (acc: T | undefined, e: NewEvent) => T,
): T[] {
  const groups = new Map<string, T>()
  for (const event of events) {
    const k = key(event)
    if (k !== undefined) groups.set(k, fold(groups.get(k), event))
  }
  return [...groups.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, value]) => value)
}

function agentRows(events: NewEvent[]): Array<ControlPlaneTables['agents']> {
  return aggregate<ControlPlaneTables['agents']>(
    events,
    (e) => (e.agentId === null ? undefined : `${e.tenantId}\u0000${e.agentId}`),
    (acc, e) => ({
      tenant_id: e.tenantId,
      agent_did: e.agentId as string,
      first_seen: Math.min(acc?.first_seen ?? e.receivedAt, e.receivedAt),
      last_seen: Math.max(acc?.last_seen ?? e.receivedAt, e.receivedAt),
      registry_authority: e.registryAuthority,
      event_count: (acc?.event_count ?? 0) + 1,
      context_count: (acc?.context_count ?? 0) + (e.isPublish ? 1 : 0),
    }),
  )
}

function agentWrite(rows: Array<ControlPlaneTables['agents']>): ProjectionWrite | undefined {
  if (rows.length === 0) return undefined
  return (qc) =>
    qc
      .insertInto('agents')
      .values(rows)
      .onConflict((oc) =>
        oc.columns(['tenant_id', 'agent_did']).doUpdateSet((eb) => ({
          last_seen: eb
            .case()
            .when('excluded.last_seen', '>', eb.ref('agents.last_seen'))
            .then(eb.ref('excluded.last_seen'))
            .else(eb.ref('agents.last_seen'))
            .end(),
          registry_authority: eb.ref('excluded.registry_authority'),
          event_count: eb('agents.event_count', '+', eb.ref('excluded.event_count')),
          context_count: eb('agents.context_count', '+', eb.ref('excluded.context_count')),
        })),
      )
}

function runRows(events: NewEvent[]): Array<ControlPlaneTables['runs']> {
  return aggregate<ControlPlaneTables['runs']>(
    events,
    (e) => (e.runId === null ? undefined : `${e.tenantId}\u0000${e.runId}`),
    (acc, e) => ({
      tenant_id: e.tenantId,
      run_id: e.runId as string,
      // The first event naming a scenario decides (in batch order, as it would one event at a time).
      scenario_id:
        acc === undefined || acc.scenario_id === UNKNOWN_SCENARIO
          ? (e.scenarioId ?? UNKNOWN_SCENARIO)
          : acc.scenario_id,
      status: 'running',
      started_at: Math.min(acc?.started_at ?? e.receivedAt, e.receivedAt),
      completed_at: null,
      inputs: null,
      result: null,
      events_count: (acc?.events_count ?? 0) + 1,
      contexts_count: (acc?.contexts_count ?? 0) + (e.isPublish ? 1 : 0),
      created_at: Math.min(acc?.created_at ?? e.receivedAt, e.receivedAt),
      updated_at: Math.max(acc?.updated_at ?? e.receivedAt, e.receivedAt),
    }),
  )
}

function runWrite(rows: Array<ControlPlaneTables['runs']>): ProjectionWrite | undefined {
  if (rows.length === 0) return undefined
  return (qc) =>
    qc
      .insertInto('runs')
      .values(rows)
      .onConflict((oc) =>
        oc.columns(['tenant_id', 'run_id']).doUpdateSet((eb) => ({
          events_count: eb('runs.events_count', '+', eb.ref('excluded.events_count')),
          contexts_count: eb('runs.contexts_count', '+', eb.ref('excluded.contexts_count')),
          // The scenario is fixed on first sight; events may only fill in a missing one.
          scenario_id: eb
            .case()
            .when('runs.scenario_id', '=', UNKNOWN_SCENARIO)
            .then(eb.ref('excluded.scenario_id'))
            .else(eb.ref('runs.scenario_id'))
            .end(),
          updated_at: eb
            .case()
            .when('excluded.updated_at', '>', eb.ref('runs.updated_at'))
            .then(eb.ref('excluded.updated_at'))
            .else(eb.ref('runs.updated_at'))
            .end(),
        })),
      )
}

function runRegistryRows(events: NewEvent[]): Array<ControlPlaneTables['run_registries']> {
  return aggregate<ControlPlaneTables['run_registries']>(
    events,
    (e) => (e.runId === null ? undefined : `${e.tenantId}\u0000${e.runId}\u0000${e.registryAuthority}`),
    (_acc, e) => ({ tenant_id: e.tenantId, run_id: e.runId as string, registry_authority: e.registryAuthority }),
  )
}

function runRegistryWrite(rows: Array<ControlPlaneTables['run_registries']>): ProjectionWrite | undefined {
  if (rows.length === 0) return undefined
  return (qc) =>
    qc
      .insertInto('run_registries')
      .values(rows)
      .onConflict((oc) => oc.doNothing())
}

function registryRows(events: NewEvent[]): Array<ControlPlaneTables['registries']> {
  return aggregate<ControlPlaneTables['registries']>(
    events,
    (e) => `${e.tenantId}\u0000${e.registryAuthority}`,
    (acc, e) => ({
      tenant_id: e.tenantId,
      authority: e.registryAuthority,
      base_url: e.registryBaseUrl ?? acc?.base_url ?? null,
      first_seen: Math.min(acc?.first_seen ?? e.receivedAt, e.receivedAt),
      last_seen: Math.max(acc?.last_seen ?? e.receivedAt, e.receivedAt),
      event_count: (acc?.event_count ?? 0) + 1,
    }),
  )
}

function registryWrite(rows: Array<ControlPlaneTables['registries']>): ProjectionWrite | undefined {
  if (rows.length === 0) return undefined
  return (qc) =>
    qc
      .insertInto('registries')
      .values(rows)
      .onConflict((oc) =>
        oc.columns(['tenant_id', 'authority']).doUpdateSet((eb) => ({
          base_url: eb.fn.coalesce('excluded.base_url', 'registries.base_url'),
          last_seen: eb
            .case()
            .when('excluded.last_seen', '>', eb.ref('registries.last_seen'))
            .then(eb.ref('excluded.last_seen'))
            .else(eb.ref('registries.last_seen'))
            .end(),
          event_count: eb('registries.event_count', '+', eb.ref('excluded.event_count')),
        })),
      )
}

function activityRows(events: NewEvent[]): Array<ControlPlaneTables['registry_activity']> {
  return aggregate<ControlPlaneTables['registry_activity']>(
    events,
    (e) => `${e.tenantId}\u0000${e.bucketStart}\u0000${e.registryAuthority}`,
    (acc, e) => ({
      tenant_id: e.tenantId,
      bucket_start: e.bucketStart,
      registry_authority: e.registryAuthority,
      event_count: (acc?.event_count ?? 0) + 1,
      publish_count: (acc?.publish_count ?? 0) + (e.isPublish ? 1 : 0),
      receipt_count: (acc?.receipt_count ?? 0) + (e.isPublish && e.receiptPresent ? 1 : 0),
    }),
  )
}

function activityWrite(rows: Array<ControlPlaneTables['registry_activity']>): ProjectionWrite | undefined {
  if (rows.length === 0) return undefined
  return (qc) =>
    qc
      .insertInto('registry_activity')
      .values(rows)
      .onConflict((oc) =>
        oc.columns(['tenant_id', 'bucket_start', 'registry_authority']).doUpdateSet((eb) => ({
          event_count: eb('registry_activity.event_count', '+', eb.ref('excluded.event_count')),
          publish_count: eb('registry_activity.publish_count', '+', eb.ref('excluded.publish_count')),
          receipt_count: eb('registry_activity.receipt_count', '+', eb.ref('excluded.receipt_count')),
        })),
      )
}

function didMethodRows(events: NewEvent[]): Array<ControlPlaneTables['did_method_activity']> {
  return aggregate<ControlPlaneTables['did_method_activity']>(
    events,
    (e) =>
      e.isPublish && e.didMethod !== null ? `${e.tenantId}\u0000${e.bucketStart}\u0000${e.didMethod}` : undefined,
    (acc, e) => ({
      tenant_id: e.tenantId,
      bucket_start: e.bucketStart,
      method: e.didMethod as string,
      publish_count: (acc?.publish_count ?? 0) + 1,
    }),
  )
}

function didMethodWrite(rows: Array<ControlPlaneTables['did_method_activity']>): ProjectionWrite | undefined {
  if (rows.length === 0) return undefined
  return (qc) =>
    qc
      .insertInto('did_method_activity')
      .values(rows)
      .onConflict((oc) =>
        oc.columns(['tenant_id', 'bucket_start', 'method']).doUpdateSet((eb) => ({
          publish_count: eb('did_method_activity.publish_count', '+', eb.ref('excluded.publish_count')),
        })),
      )
}
