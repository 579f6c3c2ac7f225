/**
 * Versioned, idempotent migrations run at startup.
 *
 * Our own small runner rather than Kysely's Migrator: the Migrator introspects every schema of a PostgreSQL
 * database to find its tables, so another schema's migration table (or one dropped concurrently) breaks it.
 * Here everything is scoped to the connection's current schema, and the whole run is one transaction holding
 * a PostgreSQL advisory lock, so instances starting at once apply each migration exactly once.
 */
import { type Kysely, sql, type Transaction } from 'kysely'
import type { Database, DatabaseKind } from './open-database.js'

/** One schema step. Names sort in application order ('0001_initial', '0002_…'); never rename an applied one. */
export interface Migration {
  name: string
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations run before the typed schema exists
  up(db: Kysely<any>, kind: DatabaseKind): Promise<void>
}

const TABLE_NAME = /^[a-z_][a-z0-9_]{0,62}$/

/** Applies every migration not yet applied, in name order; throws naming the failing migration (nothing of it kept). */
export async function migrateToLatest(
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any schema
  database: Database<any>,
  migrations: Migration[],
  options: { table?: string } = {},
): Promise<{ applied: string[] }> {
  const table = options.table ?? 'acdp_migration'
  if (!TABLE_NAME.test(table)) throw new TypeError(`invalid migration table name: ${table}`)
  const ordered = [...migrations].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  for (let i = 1; i < ordered.length; i++) {
    if (ordered[i]?.name === ordered[i - 1]?.name) throw new TypeError(`duplicate migration name: ${ordered[i]?.name}`)
  }

  return database.db.transaction().execute(async (trx) => {
    if (database.kind === 'postgres') {
      // Serializes concurrent starters; released at commit. The key is derived from the table name.
      await sql`select pg_advisory_xact_lock(hashtext(${`acdp-migrate:${table}`}))`.execute(trx)
    }
    await sql`create table if not exists ${sql.table(table)} (name varchar(255) primary key, applied_at_ms bigint not null)`.execute(
      trx,
    )
    const rows = await sql<{ name: string }>`select name from ${sql.table(table)}`.execute(trx)
    const done = new Set(rows.rows.map((r) => r.name))
    const applied: string[] = []
    for (const migration of ordered) {
      if (done.has(migration.name)) continue
      try {
        await migration.up(trx as Transaction<unknown>, database.kind)
      } catch (cause) {
        throw new Error(`couldn't apply migration ${migration.name}`, { cause })
      }
      await sql`insert into ${sql.table(table)} (name, applied_at_ms) values (${migration.name}, ${Date.now()})`.execute(
        trx,
      )
      applied.push(migration.name)
    }
    return { applied }
  })
}
