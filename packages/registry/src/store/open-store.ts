/**
 * Opens the configured database, applies the registry's migrations (idempotent; PostgreSQL instances starting
 * together serialize on an advisory lock) and returns the store with a close handle.
 */
import { type Database, migrateToLatest, openDatabase } from '@acdp/storage'
import type { RegistryConfig } from '../core/config.js'
import { createKyselyStore } from './kysely-store.js'
import { REGISTRY_MIGRATION_TABLE, REGISTRY_MIGRATIONS } from './migrations/index.js'
import type { RegistryDatabase } from './schema.js'
import type { RegistryStore } from './store.js'

export interface OpenedRegistryStore {
  store: RegistryStore
  database: Database<RegistryDatabase>
  /** Migrations applied by this call (empty when the schema was already current). */
  applied: string[]
  close(): Promise<void>
}

/** Opens `storage` and migrates it. Throws if the database is unreachable or a migration fails. */
export async function openRegistryStore(storage: RegistryConfig['storage']): Promise<OpenedRegistryStore> {
  const database =
    storage.backend === 'postgres'
      ? await openDatabase<RegistryDatabase>({
          kind: 'postgres',
          url: storage.postgres_url,
          max: storage.max_connections,
        })
      : await openDatabase<RegistryDatabase>({
          kind: 'sqlite',
          path: storage.sqlite_path,
          walMaxBytes: storage.sqlite_wal_max_bytes,
        })
  try {
    const { applied } = await migrateRegistryDatabase(database)
    return { store: createKyselyStore(database), database, applied, close: () => database.close() }
  } catch (error) {
    await database.close()
    throw error
  }
}

/** Applies the registry migrations to an already open database (tests use throwaway databases this way). */
export function migrateRegistryDatabase(database: Database<RegistryDatabase>): Promise<{ applied: string[] }> {
  return migrateToLatest(database, [...REGISTRY_MIGRATIONS], { table: REGISTRY_MIGRATION_TABLE })
}
