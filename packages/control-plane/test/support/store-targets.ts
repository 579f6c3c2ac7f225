/**
 * Test support: a migrated control plane store on one of @acdp/storage's test targets (SQLite in memory
 * always, PostgreSQL in a throwaway schema when ACDP_TEST_DATABASE_URL is set).
 */
import { randomBytes } from 'node:crypto'
import { type Database, migrateToLatest, type TestDatabaseTarget } from '@acdp/storage'
import { createKyselyStore } from '../../src/store/kysely-store.js'
import { CONTROL_PLANE_MIGRATIONS, MIGRATION_TABLE } from '../../src/store/migrations/index.js'
import type { ControlPlaneTables } from '../../src/store/schema.js'
import type { ControlPlaneStore } from '../../src/store/store.js'

/** Opens a fresh, migrated store; `store.close()` releases (and on PostgreSQL drops) the database. */
export async function openMigratedStore(
  target: TestDatabaseTarget,
): Promise<{ store: ControlPlaneStore; database: Database<ControlPlaneTables>; migrationTable: string }> {
  const database = (await target.open()) as Database<ControlPlaneTables>
  // Kysely's Migrator looks for its table in EVERY schema (no migrationTableSchema is passed by @acdp/storage),
  // so a parallel suite's throwaway schema holding the same table name makes it skip creating ours. A name
  // unique to this schema sidesteps that until the storage package pins the schema.
  const table = database.kind === 'postgres' ? `${MIGRATION_TABLE}_${randomBytes(4).toString('hex')}` : MIGRATION_TABLE
  // The same introspection query also fails when another suite drops its schema at that moment
  // ("schema … does not exist"); retry that race a few times.
  for (let attempt = 1; ; attempt++) {
    try {
      await migrateToLatest(database, [...CONTROL_PLANE_MIGRATIONS], { table })
      break
    } catch (error) {
      const cause = (error as { cause?: { message?: string } }).cause?.message ?? ''
      if (attempt >= 5 || !/does not exist/.test(cause)) {
        await database.close() // drops the throwaway schema instead of leaking it
        throw error
      }
      await new Promise((resolve) => setTimeout(resolve, 20 * attempt))
    }
  }
  return { store: createKyselyStore(database), database, migrationTable: table }
}
