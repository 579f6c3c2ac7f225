/**
 * Bulk load of the control plane's event table and everything ingest derives from it, for the benchmarks that
 * need a large table (bench/control-plane.ts `large` and `dashboard` phases, bench/dashboard.ts): one set-based
 * INSERT … SELECT per table through the store's own schema, instead of an HTTP round per event.
 */
/**
 * Inserts `count` context_published events of one registry, 50 agents, runs of 20 events, a lineage edge for every
 * 5th event, receipts on every other event, spread evenly over the 23 hours before `nowMs` — and everything the
 * ingest transaction would have written with them (runs and their registry sets, lineage edges, agents, the
 * registry row, the 5-minute dashboard rollups) — with one set-based INSERT … SELECT per table. Event bodies are
 * `body` (one registry-shaped body, ≈ 600 bytes, for every row). Runs before any ingest, on an empty, migrated database.
 */
export async function bulkLoadEvents(
  database: { db: unknown; kind: 'sqlite' | 'postgres' },
  count: number,
  nowMs: number,
  body: string,
  authority = 'bench.registry.test',
): Promise<void> {
  const AUTHORITY = authority
  const { sql } = await import('kysely')
  const db = database.db as Parameters<ReturnType<typeof sql.raw>['execute']>[0]
  const run = (text: string) => sql.raw(text).execute(db)
  const spanMs = 23 * 3_600_000
  const time = `(${nowMs - spanMs} + (n * ${spanMs}) / ${count})`
  const numbers =
    database.kind === 'postgres'
      ? `SELECT CAST(g AS BIGINT) AS n FROM generate_series(1, ${count}) AS g`
      : `WITH RECURSIVE s(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM s WHERE n < ${count}) SELECT n FROM s`
  const payload = body.replace(/'/g, "''")
  const ctx = `'acdp://${AUTHORITY}/bulk-'`
  await run(`
    INSERT INTO context_events (tenant_id, dedup_key, event_id, event_type, event_ts, received_at, run_id, ctx_id,
      lineage_id, agent_id, context_type, visibility, version, derived_from, registry_authority, scenario_id,
      key_fingerprint, receipt_present, raw_payload)
    SELECT 'default', 'evt:bulk-' || n, 'bulk-' || n, 'context_published', ${time}, ${time}, 'bulk-run-' || (n / 20),
      ${ctx} || n, 'lin:bulk', 'did:key:z6MkBenchAgent' || (n % 50), 'analysis', 'public', 1,
      CASE WHEN n % 5 = 0 THEN '["acdp://${AUTHORITY}/bulk-' || (n - 1) || '"]' ELSE '[]' END,
      '${AUTHORITY}', 'scenario-' || ((n / 20) % 7), NULL, n % 2, '${payload}'
    FROM (${numbers}) AS numbers`)
  await run(`
    INSERT INTO lineage_edges (tenant_id, from_ctx_id, to_ctx_id, run_id, created_at)
    SELECT 'default', ${ctx} || (n - 1), ${ctx} || n, 'bulk-run-' || (n / 20), ${time}
    FROM (${numbers}) AS numbers WHERE n % 5 = 0`)
  await run(`
    INSERT INTO runs (tenant_id, run_id, scenario_id, status, started_at, completed_at, inputs, result, events_count,
      contexts_count, created_at, updated_at)
    SELECT tenant_id, run_id, MIN(scenario_id), 'running', MIN(event_ts), NULL, NULL, NULL, COUNT(*), COUNT(*),
      MIN(received_at), MAX(received_at)
    FROM context_events GROUP BY tenant_id, run_id`)
  await run(`INSERT INTO run_registries (tenant_id, run_id, registry_authority)
    SELECT tenant_id, run_id, '${AUTHORITY}' FROM runs`)
  await run(`
    INSERT INTO agents (tenant_id, agent_did, first_seen, last_seen, registry_authority, event_count, context_count)
    SELECT tenant_id, agent_id, MIN(received_at), MAX(received_at), '${AUTHORITY}', COUNT(*), COUNT(*)
    FROM context_events GROUP BY tenant_id, agent_id`)
  await run(`
    INSERT INTO registries (tenant_id, authority, base_url, first_seen, last_seen, event_count)
    SELECT 'default', '${AUTHORITY}', 'https://${AUTHORITY}', MIN(received_at), MAX(received_at), COUNT(*)
    FROM context_events`)
  await run(`
    INSERT INTO registry_activity (tenant_id, bucket_start, registry_authority, event_count, publish_count,
      receipt_count)
    SELECT tenant_id, (received_at / 300000) * 300000, registry_authority, COUNT(*), COUNT(*), SUM(receipt_present)
    FROM context_events GROUP BY tenant_id, (received_at / 300000) * 300000, registry_authority`)
  await run(`
    INSERT INTO did_method_activity (tenant_id, bucket_start, method, publish_count)
    SELECT tenant_id, (received_at / 300000) * 300000, 'key', COUNT(*)
    FROM context_events GROUP BY tenant_id, (received_at / 300000) * 300000`)
  // What autovacuum (PostgreSQL) would soon do, done before the measurement instead of during it (statistics,
  // hint bits, the visibility map); a huge WAL left by the load is checkpointed away (SQLite).
  if (database.kind === 'postgres') await run('VACUUM (ANALYZE)')
  else await run('PRAGMA wal_checkpoint(TRUNCATE)')
}
