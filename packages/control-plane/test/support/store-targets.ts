/**
 * Test support: a migrated control plane store on one of @acdp/storage's test targets (SQLite in memory
 * always, PostgreSQL in a throwaway schema when ACDP_TEST_DATABASE_URL is set).
 */
import { type Database, migrateToLatest, type TestDatabaseTarget } from '@acdp/storage'
import { createKyselyStore } from '../../src/store/kysely-store.js'
import { CONTROL_PLANE_MIGRATIONS, MIGRATION_TABLE } from '../../src/store/migrations/index.js'
import type { ControlPlaneTables } from '../../src/store/schema.js'
import type { ControlPlaneStore } from '../../src/store/store.js'

/** Opens a fresh, migrated store; `store.close()` releases (and on PostgreSQL drops) the database. */
export async function openMigratedStore(
  target: TestDatabaseTarget,
): Promise<{ store: ControlPlaneStore; database: Database<ControlPlaneTables> }> {
  const database = (await target.open()) as Database<ControlPlaneTables>
  await migrateToLatest(database, [...CONTROL_PLANE_MIGRATIONS], { table: MIGRATION_TABLE })
  return { store: createKyselyStore(database), database }
}
