/**
 * 0830: `run_activity`, runs counted per (tenant, hour of started_at, scenario), kept exact by database triggers
 * on `runs`, so the dashboard's "runs in the window" and "runs per scenario" read a few hundred rollup rows plus at
 * most one hour of runs instead of every run in the window.
 *
 * Why: at 500,000 events (25,000 runs in a 24-hour window) those two aggregates over `runs` took 10 ms and 17 ms
 * of PostgreSQL time per overview, all the other queries together under 2 ms.
 *
 * Why triggers and not the ingest transaction: a run's window key moves after it is created (POST /runs
 * with an explicit started_at, a scenario filled in by a later event), and runs are written by three code paths
 * (ingest batch, start, complete). A trigger sees every insert, update and delete of `runs` in the writing
 * transaction, whatever the path, so the rollup equals `SELECT … GROUP BY` over `runs` at every commit.
 *
 * PostgreSQL: statement-level triggers with transition tables, one per operation (PostgreSQL allows transition
 * tables only on single-event triggers without column lists). Each statement's changes are folded into one
 * signed delta per key and upserted in key order, so concurrent writers (several instances) take the rollup
 * rows' locks in one order, after every other lock of their statement: no deadlock. An update that moves no run
 * to another key (the common case: ingest bumping a run's counters) folds to nothing and writes nothing.
 * SQLite: row-level triggers (one writer at a time; the update trigger fires only when the key moved).
 *
 * The backfill runs after the triggers exist in the same transaction; on PostgreSQL CREATE TRIGGER locks `runs`
 * against writes until commit, so no run written meanwhile is counted twice or missed.
 */
import type { Migration } from '@acdp/storage'
import { type Kysely, sql } from 'kysely'

/** Bucket width of `run_activity` (also in dashboard/dashboard.ts, which reads it): one hour. */
export const RUN_ACTIVITY_BUCKET_MS = 3_600_000

const bucket = (column: string) => `(${column} / ${RUN_ACTIVITY_BUCKET_MS}) * ${RUN_ACTIVITY_BUCKET_MS}`

/** Upsert of signed deltas per key from `source` (rows of tenant_id, bucket_start, scenario_id, delta). */
function applyDeltas(source: string): string {
  return `
    INSERT INTO run_activity (tenant_id, bucket_start, scenario_id, run_count)
    SELECT tenant_id, bucket_start, scenario_id, SUM(delta) FROM (${source}) AS deltas
    GROUP BY tenant_id, bucket_start, scenario_id
    HAVING SUM(delta) <> 0
    ORDER BY tenant_id, bucket_start, scenario_id
    ON CONFLICT (tenant_id, bucket_start, scenario_id)
    DO UPDATE SET run_count = run_activity.run_count + excluded.run_count`
}

const keysOf = (table: string, sign: 1 | -1) =>
  `SELECT tenant_id, ${bucket('started_at')} AS bucket_start, scenario_id, ${sign} AS delta FROM ${table}`

const POSTGRES_FUNCTION = `
  CREATE FUNCTION run_activity_apply() RETURNS trigger LANGUAGE plpgsql AS $$
  BEGIN
    IF TG_OP = 'INSERT' THEN
      ${applyDeltas(keysOf('new_runs', 1))};
    ELSIF TG_OP = 'UPDATE' THEN
      ${applyDeltas(`${keysOf('new_runs', 1)} UNION ALL ${keysOf('old_runs', -1)}`)};
    ELSE
      ${applyDeltas(keysOf('old_runs', -1))};
    END IF;
    RETURN NULL;
  END
  $$`

const POSTGRES_TRIGGERS = [
  `CREATE TRIGGER run_activity_insert AFTER INSERT ON runs REFERENCING NEW TABLE AS new_runs
     FOR EACH STATEMENT EXECUTE FUNCTION run_activity_apply()`,
  `CREATE TRIGGER run_activity_update AFTER UPDATE ON runs REFERENCING OLD TABLE AS old_runs NEW TABLE AS new_runs
     FOR EACH STATEMENT EXECUTE FUNCTION run_activity_apply()`,
  `CREATE TRIGGER run_activity_delete AFTER DELETE ON runs REFERENCING OLD TABLE AS old_runs
     FOR EACH STATEMENT EXECUTE FUNCTION run_activity_apply()`,
]

/** SQLite: `+1` / `-1` for one row's key (`row` is NEW or OLD). */
function sqliteBump(row: 'NEW' | 'OLD', delta: 1 | -1): string {
  return `
    INSERT INTO run_activity (tenant_id, bucket_start, scenario_id, run_count)
    VALUES (${row}.tenant_id, ${bucket(`${row}.started_at`)}, ${row}.scenario_id, ${delta})
    ON CONFLICT (tenant_id, bucket_start, scenario_id) DO UPDATE SET run_count = run_count + ${delta};`
}

const SQLITE_TRIGGERS = [
  `CREATE TRIGGER run_activity_insert AFTER INSERT ON runs BEGIN ${sqliteBump('NEW', 1)} END`,
  `CREATE TRIGGER run_activity_update AFTER UPDATE OF tenant_id, started_at, scenario_id ON runs
     WHEN OLD.tenant_id IS NOT NEW.tenant_id OR OLD.scenario_id IS NOT NEW.scenario_id
       OR ${bucket('OLD.started_at')} IS NOT ${bucket('NEW.started_at')}
     BEGIN ${sqliteBump('OLD', -1)} ${sqliteBump('NEW', 1)} END`,
  `CREATE TRIGGER run_activity_delete AFTER DELETE ON runs BEGIN ${sqliteBump('OLD', -1)} END`,
]

export const migration0830RunActivity: Migration = {
  name: '0830_run_activity',
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations run before the typed schema exists
  async up(db: Kysely<any>, kind) {
    const int = kind === 'postgres' ? 'bigint' : 'integer'
    await db.schema
      .createTable('run_activity')
      .addColumn('tenant_id', 'text', (c) => c.notNull())
      .addColumn('bucket_start', int, (c) => c.notNull())
      .addColumn('scenario_id', 'text', (c) => c.notNull())
      .addColumn('run_count', int, (c) => c.notNull())
      .addPrimaryKeyConstraint('run_activity_pkey', ['tenant_id', 'bucket_start', 'scenario_id'])
      .execute()
    if (kind === 'postgres') {
      await sql.raw(POSTGRES_FUNCTION).execute(db)
      for (const trigger of POSTGRES_TRIGGERS) await sql.raw(trigger).execute(db)
    } else {
      for (const trigger of SQLITE_TRIGGERS) await sql.raw(trigger).execute(db)
    }
    await sql
      .raw(
        `INSERT INTO run_activity (tenant_id, bucket_start, scenario_id, run_count)
         SELECT tenant_id, ${bucket('started_at')}, scenario_id, COUNT(*) FROM runs
         GROUP BY tenant_id, ${bucket('started_at')}, scenario_id`,
      )
      .execute(db)
  },
}
