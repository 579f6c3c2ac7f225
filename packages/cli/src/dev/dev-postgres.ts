/**
 * `acdp dev --postgres URL`: both services on one PostgreSQL database, each in its own schema
 * (`<prefix>_registry`, `<prefix>_control_plane`), so one database serves a dev stack and `--reset` drops exactly
 * the stack's two schemas. Each service gets the URL with `options=-c search_path=<its schema>`: neither service
 * has a schema setting, and the driver passes `options` to the server at connect time.
 */
import { openDatabase } from '@acdp/storage'

/** Default schema prefix; a second stack on the same database takes another (`--postgres-schema-prefix`). */
export const DEV_POSTGRES_SCHEMA_PREFIX = 'acdp_dev'

const SCHEMA_PREFIX = /^[a-z_][a-z0-9_]{0,40}$/

/** The two schemas of a stack. */
export interface DevPostgresSchemas {
  registry: string
  controlPlane: string
}

export function devPostgresSchemas(prefix: string): DevPostgresSchemas {
  if (!SCHEMA_PREFIX.test(prefix)) {
    throw new TypeError(`schema prefix "${prefix}" must match ${SCHEMA_PREFIX.source} (lower-case, digits, _)`)
  }
  return { registry: `${prefix}_registry`, controlPlane: `${prefix}_control_plane` }
}

/** `url` with the session's search_path set to `schema` (any other query parameter is kept). */
export function urlWithSearchPath(url: string, schema: string): string {
  const parsed = new URL(url)
  parsed.searchParams.set('options', `-c search_path=${schema}`)
  return parsed.toString()
}

/**
 * Prepares the stack's schemas: drops them first on `reset`, creates them when missing.
 *
 * @returns whether the registry's schema already held tables (its data survives) before this call.
 */
export async function prepareDevPostgres(url: string, schemas: DevPostgresSchemas, reset: boolean): Promise<boolean> {
  const database = await openDatabase({ kind: 'postgres', url, max: 1 })
  const pool = database.pool!
  try {
    if (reset) {
      // Names are validated by devPostgresSchemas; identifiers cannot be bound as parameters.
      for (const schema of [schemas.registry, schemas.controlPlane])
        await pool.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`)
    }
    const existing = await pool.query<{ count: number }>(
      'SELECT count(*)::int AS count FROM information_schema.tables WHERE table_schema = $1',
      [schemas.registry],
    )
    for (const schema of [schemas.registry, schemas.controlPlane])
      await pool.query(`CREATE SCHEMA IF NOT EXISTS ${schema}`)
    return (existing.rows[0]?.count ?? 0) > 0
  } finally {
    await database.close()
  }
}
