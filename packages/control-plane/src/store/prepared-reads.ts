/**
 * Prepared reads for the hot list queries (GET /runs, GET /events): SQL text built once per query shape, run as a
 * prepared statement that returns rows as arrays in SELECT order, without building and compiling a Kysely query
 * per request.
 *
 * Why: a page of 50 rows cost ≈ 550 µs of CPU, and a profile put most of it in per-request query building, one
 * JavaScript object per row with a property per column (SQLite's object rows cost ≈ 40 % more than array rows for
 * the same page), and re-mapping those objects. The statements are fixed texts with bound parameters, so they are
 * as safe as the builder's.
 *
 * SQLite: statements are prepared on the store's one connection and run while holding Kysely's connection lock,
 * so a read never executes inside the event writer's open transaction (which spans `await`s) and never sees its
 * uncommitted rows. PostgreSQL: named statements through the pool (each connection prepares a text once).
 */
import { createHash } from 'node:crypto'
import type { Database } from '@acdp/storage'
import type { StatementSync } from 'node:sqlite'

/** A value bound to a statement parameter. */
export type SqlValue = string | number | null

/** One row, its columns in SELECT order. */
export type SqlRow = readonly unknown[]

export interface PreparedReads {
  /** Runs `sql` (placeholders `$1`, `$2`…, on both dialects) with `params`; rows as arrays in SELECT order. */
  all(sql: string, params: readonly SqlValue[]): Promise<SqlRow[]>
}

/** How many distinct statement texts stay prepared (list filters combine into at most a few hundred shapes). */
const STATEMENT_CACHE_SIZE = 256

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- the store's tables are not needed here
export function createPreparedReads(database: Database<any>): PreparedReads {
  if (database.kind === 'postgres') {
    const pool = database.pool
    if (pool === undefined) throw new TypeError('a PostgreSQL database must expose its pool')
    const names = new BoundedCache<string>()
    return {
      async all(sql, params) {
        let name = names.get(sql)
        if (name === undefined) {
          // Named by content: a text evicted here and seen again reuses the statement each connection prepared.
          name = `acdp_cp_${createHash('sha256').update(sql).digest('hex').slice(0, 24)}`
          names.set(sql, name)
        }
        const result = await pool.query({ name, text: sql, values: params as unknown[], rowMode: 'array' })
        return result.rows as SqlRow[]
      },
    }
  }
  const sqlite = database.sqlite
  if (sqlite === undefined) throw new TypeError('a SQLite database must expose its connection')
  const statements = new BoundedCache<StatementSync>()
  const executor = database.db.getExecutor()
  return {
    all(sql, params) {
      let statement = statements.get(sql)
      if (statement === undefined) {
        // SQLite accepts `$1` as a named parameter; binding by position keeps the texts identical on both dialects.
        statement = sqlite.raw.prepare(sql.replace(/\$(\d+)/g, '?$1'))
        statement.setReturnArrays(true)
        statements.set(sql, statement)
      }
      const prepared = statement
      return executor.provideConnection(async () => prepared.all(...params) as unknown as SqlRow[])
    },
  }
}

/** An insertion-ordered map used as an LRU: a hit moves to the end, the oldest entry is evicted. */
class BoundedCache<V> {
  readonly #entries = new Map<string, V>()

  get(key: string): V | undefined {
    const value = this.#entries.get(key)
    if (value !== undefined) {
      this.#entries.delete(key)
      this.#entries.set(key, value)
    }
    return value
  }

  set(key: string, value: V): void {
    this.#entries.set(key, value)
    if (this.#entries.size > STATEMENT_CACHE_SIZE) {
      const oldest = this.#entries.keys().next().value
      if (oldest !== undefined) this.#entries.delete(oldest)
    }
  }
}
