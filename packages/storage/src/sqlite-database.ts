/**
 * Adapts the built-in `node:sqlite` DatabaseSync to the `SqliteDatabase` interface Kysely's SqliteDialect
 * expects (the better-sqlite3 shape), so the embedded store needs no native addon.
 */
import { DatabaseSync, type StatementSync } from 'node:sqlite'
import type { SqliteDatabase, SqliteStatement } from 'kysely'

type SqliteValue = null | number | bigint | string | Uint8Array

/** node:sqlite binds only null, numbers, bigints, strings and bytes; map the rest the way our stores write them. */
function toSqliteValue(value: unknown): SqliteValue {
  if (value === undefined || value === null) return null
  if (typeof value === 'boolean') return value ? 1 : 0
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'string') return value
  if (value instanceof Uint8Array) return value
  if (value instanceof Date) return value.getTime()
  throw new TypeError(`cannot bind a ${typeof value} to a SQLite parameter`)
}

function bind(parameters: ReadonlyArray<unknown>): SqliteValue[] {
  return parameters.map(toSqliteValue)
}

class NodeSqliteStatement implements SqliteStatement {
  readonly reader: boolean
  readonly #statement: StatementSync

  constructor(statement: StatementSync) {
    this.#statement = statement
    // A statement that yields columns (SELECT, or any statement with RETURNING) is read with all().
    this.reader = statement.columns().length > 0
  }

  all(parameters: ReadonlyArray<unknown>): unknown[] {
    return this.#statement.all(...bind(parameters))
  }

  run(parameters: ReadonlyArray<unknown>): { changes: number | bigint; lastInsertRowid: number | bigint } {
    return this.#statement.run(...bind(parameters))
  }

  iterate(parameters: ReadonlyArray<unknown>): IterableIterator<unknown> {
    return this.#statement.iterate(...bind(parameters)) as IterableIterator<unknown>
  }
}

/** How many distinct SQL texts keep a prepared statement; Kysely compiles the same text for the same query shape. */
const STATEMENT_CACHE_SIZE = 512

export class NodeSqliteDatabase implements SqliteDatabase {
  readonly raw: DatabaseSync
  // Insertion-ordered map used as an LRU: a hit is re-inserted at the end, the oldest entry is evicted.
  readonly #statements = new Map<string, NodeSqliteStatement>()

  /**
   * `walAutoCheckpoint: false` leaves checkpointing to someone else (the checkpoint worker), so no commit on this
   * connection ever copies WAL pages back and fsyncs on the caller's thread. `journalSizeLimitBytes` trims the WAL
   * file to that size on the first commit after the WAL rewinds.
   */
  constructor(path: string, options: { walAutoCheckpoint?: boolean; journalSizeLimitBytes?: number } = {}) {
    this.raw = new DatabaseSync(path)
    this.raw.exec('PRAGMA foreign_keys = ON')
    this.raw.exec('PRAGMA busy_timeout = 5000')
    if (path !== ':memory:') {
      // WAL lets readers proceed while a writer commits; NORMAL sync is durable at checkpoints and safe with WAL.
      this.raw.exec('PRAGMA journal_mode = WAL')
      this.raw.exec('PRAGMA synchronous = NORMAL')
      if (options.walAutoCheckpoint === false) this.raw.exec('PRAGMA wal_autocheckpoint = 0')
      if (options.journalSizeLimitBytes !== undefined) {
        this.raw.exec(`PRAGMA journal_size_limit = ${Math.trunc(options.journalSizeLimitBytes)}`)
      }
    }
    // 16 MiB of page cache keeps hot index pages in memory. Larger is slower here: SQLite walks its page cache
    // on every commit, and 64 MiB cost ≈ 200 µs of main-thread CPU per publish (docs/performance/journal.md).
    this.raw.exec('PRAGMA cache_size = -16384')
    this.raw.exec('PRAGMA temp_store = MEMORY')
  }

  prepare(sql: string): SqliteStatement {
    const cached = this.#statements.get(sql)
    if (cached) {
      this.#statements.delete(sql)
      this.#statements.set(sql, cached)
      return cached
    }
    const statement = new NodeSqliteStatement(this.raw.prepare(sql))
    this.#statements.set(sql, statement)
    if (this.#statements.size > STATEMENT_CACHE_SIZE) {
      const oldest = this.#statements.keys().next().value
      if (oldest !== undefined) this.#statements.delete(oldest)
    }
    return statement
  }

  close(): void {
    this.#statements.clear()
    if (this.raw.isOpen) this.raw.close()
  }
}
