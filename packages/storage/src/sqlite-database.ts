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

/**
 * The statements kept are also bounded by the native memory SQLite holds for them, which V8 does not see. A
 * multi-row INSERT is one SQL text per row count (the control plane writes up to 256 events per statement), and
 * SQLite's compiled program grows with the text: ≈ 55 bytes per SQL character measured with node:sqlite (256
 * INSERTs of 1 to 256 rows of 14 parameters: 52 MiB resident for 1 M characters of SQL). Keeping all of them
 * held ≈ 100 MiB after sustained ingest (docs/control-plane/memory.md). Estimated at 64 bytes per character, the
 * cache keeps at most 8 MiB; a statement whose estimate alone exceeds that is prepared for each use and not kept.
 */
export const STATEMENT_BYTES_PER_SQL_CHAR = 64
export const STATEMENT_CACHE_BYTES = 8 * 1024 * 1024

function statementBytes(sql: string): number {
  return sql.length * STATEMENT_BYTES_PER_SQL_CHAR
}

export class NodeSqliteDatabase implements SqliteDatabase {
  readonly raw: DatabaseSync
  // Insertion-ordered map used as an LRU: a hit is re-inserted at the end, the oldest entry is evicted.
  readonly #statements = new Map<string, NodeSqliteStatement>()
  /** Sum of the estimated native bytes of the statements in #statements. */
  #statementBytes = 0

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
    // on every commit, and 64 MiB cost ≈ 200 µs of main-thread CPU per publish (docs/performance.md).
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
    const bytes = statementBytes(sql)
    if (bytes > STATEMENT_CACHE_BYTES) return statement
    this.#statements.set(sql, statement)
    this.#statementBytes += bytes
    // An evicted statement's native memory is released when V8 collects it (node:sqlite has no finalize()).
    for (const oldest of this.#statements.keys()) {
      if (this.#statements.size <= STATEMENT_CACHE_SIZE && this.#statementBytes <= STATEMENT_CACHE_BYTES) break
      this.#statements.delete(oldest)
      this.#statementBytes -= statementBytes(oldest)
    }
    return statement
  }

  /** Statements kept and their estimated native bytes (tests, and what docs/control-plane/memory.md states). */
  get statementCache(): { entries: number; bytes: number } {
    return { entries: this.#statements.size, bytes: this.#statementBytes }
  }

  close(): void {
    this.#statements.clear()
    this.#statementBytes = 0
    if (this.raw.isOpen) this.raw.close()
  }
}
