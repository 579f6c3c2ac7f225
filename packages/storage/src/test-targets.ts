/**
 * Databases for contract tests: SQLite in memory always, PostgreSQL when ACDP_TEST_DATABASE_URL is set.
 * Each PostgreSQL target gets a throwaway schema, dropped on close, so parallel suites never collide.
 */
import { randomBytes } from 'node:crypto'
import { type Database, type DatabaseKind, openDatabase } from './open-database.js'

export interface TestDatabaseTarget {
  name: DatabaseKind
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- any schema
  open(): Promise<Database<any>>
}

/** The PostgreSQL URL tests may use, or undefined. Read here so stores never read the environment. */
export function testDatabaseUrl(): string | undefined {
  const url = process.env.ACDP_TEST_DATABASE_URL
  return url ? url : undefined
}

export function testDatabaseTargets(): TestDatabaseTarget[] {
  const targets: TestDatabaseTarget[] = [
    { name: 'sqlite', open: () => openDatabase({ kind: 'sqlite', path: ':memory:' }) },
  ]
  const url = testDatabaseUrl()
  if (url) targets.push({ name: 'postgres', open: () => openPostgresTestSchema(url) })
  return targets
}

/** Creates a fresh schema and opens a pool bound to it; closing drops the schema. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any schema
export async function openPostgresTestSchema(url: string, options: { max?: number } = {}): Promise<Database<any>> {
  const schema = `acdp_t_${randomBytes(6).toString('hex')}`
  // Imported here: the package index re-exports this module, and services on SQLite never load the driver.
  const { default: pg } = await import('pg')
  const admin = new pg.Client({ connectionString: url })
  await admin.connect()
  try {
    await admin.query(`CREATE SCHEMA ${schema}`)
  } finally {
    await admin.end()
  }
  const database = await openDatabase({ kind: 'postgres', url, schema, ...(options.max ? { max: options.max } : {}) })
  return {
    ...database,
    async close() {
      await database.close()
      const cleanup = new pg.Client({ connectionString: url })
      await cleanup.connect()
      try {
        await cleanup.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
      } finally {
        await cleanup.end()
      }
    },
  }
}
