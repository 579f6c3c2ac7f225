/**
 * Versioned, idempotent migrations run at startup, through Kysely's Migrator (which takes a PostgreSQL
 * advisory lock, so several instances starting at once apply each migration exactly once).
 */
import { type Kysely, type Migration as KyselyMigration, Migrator, sql } from 'kysely'
import type { Database, DatabaseKind } from './open-database.js'

/** One schema step. Names sort in application order ('0001_initial', '0002_…'); never rename an applied one. */
export interface Migration {
  name: string
  // biome-ignore lint/suspicious/noExplicitAny: migrations run before the typed schema exists
  up(db: Kysely<any>, kind: DatabaseKind): Promise<void>
}

/** Applies every migration not yet applied, in name order. Throws with the failing migration's name. */
export async function migrateToLatest(
  // biome-ignore lint/suspicious/noExplicitAny: any schema
  database: Database<any>,
  migrations: Migration[],
  options: { table?: string } = {},
): Promise<{ applied: string[] }> {
  const names = new Set<string>()
  for (const m of migrations) {
    if (names.has(m.name)) throw new TypeError(`duplicate migration name: ${m.name}`)
    names.add(m.name)
  }
  const table = options.table ?? 'acdp_migration'
  // Kysely looks for its migration table in every schema unless told which one; on a database shared with
  // other schemas (parallel test suites, other tenants) it would find theirs. Pin it to the current schema.
  const schema = database.kind === 'postgres' ? await currentSchema(database.db) : undefined
  const migrator = new Migrator({
    db: database.db,
    ...(schema ? { migrationTableSchema: schema } : {}),
    migrationTableName: table,
    migrationLockTableName: `${table}_lock`,
    provider: {
      async getMigrations() {
        const out: Record<string, KyselyMigration> = {}
        for (const m of migrations) out[m.name] = { up: (db) => m.up(db, database.kind) }
        return out
      },
    },
  })
  const { error, results } = await migrator.migrateToLatest()
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName
    throw new Error(`couldn't apply migration ${failed ?? '(unknown)'}`, { cause: error })
  }
  return { applied: (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName) }
}

// biome-ignore lint/suspicious/noExplicitAny: any schema
async function currentSchema(db: Kysely<any>): Promise<string> {
  const result = await sql<{ schema: string }>`select current_schema() as schema`.execute(db)
  const schema = result.rows[0]?.schema
  if (!schema)
    throw new Error("couldn't determine the PostgreSQL schema for migrations: search_path names no existing schema")
  return schema
}
