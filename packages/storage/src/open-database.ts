/**
 * Opens a Kysely database on either backend: embedded SQLite (node:sqlite) or PostgreSQL (pg).
 */
import { closeSync, mkdirSync, openSync } from 'node:fs'
import { dirname } from 'node:path'
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely'
import type pg from 'pg'
import { PgNamedStatements, startupOptions } from './pg-named-statements.js'
import { NodeSqliteDatabase } from './sqlite-database.js'
import {
  DEFAULT_WAL_MAX_BYTES,
  journalSizeLimit,
  MIN_WAL_MAX_BYTES,
  startWalCheckpointer,
  type WalCheckpointer,
  type WalCheckpointStats,
  type WriterGate,
} from './wal-checkpointer.js'

export type DatabaseKind = 'sqlite' | 'postgres'

export type OpenDatabaseOptions =
  | {
      kind: 'sqlite'
      path: string
      /** WAL size that triggers a TRUNCATE checkpoint (file databases). Default 64 MiB. */
      walMaxBytes?: number
      /** WAL size that starts the checkpoint worker (file databases); 0 starts it at once. Default 1 MiB. */
      checkpointWorkerStartBytes?: number
    }
  | {
      kind: 'postgres'
      url: string
      schema?: string
      max?: number
      /** Server settings for every connection (sent at connection start-up as `-c name=value`). */
      settings?: Readonly<Record<string, string>>
    }

/** An open database. `close()` releases every connection; safe to call once. */
export interface Database<T> {
  db: Kysely<T>
  kind: DatabaseKind
  /** PostgreSQL only: the pool, for LISTEN/NOTIFY and other driver-level needs. */
  pool?: pg.Pool
  /**
   * PostgreSQL only: the statement texts sent as named prepared statements (pg-named-statements.ts), whether run
   * through `db` or `pool`. A service adds its hot, fixed texts.
   */
  namedStatements?: PgNamedStatements
  /**
   * SQLite only: the connection Kysely uses, for hot paths that run prepared statements directly. It is the
   * same single connection: while a Kysely transaction is open (it spans `await`s), a statement run here would
   * execute INSIDE it and see or lose its uncommitted writes. Use it only where every transaction of the store
   * on that path is a synchronous BEGIN…COMMIT run here, with no `await` in between.
   */
  sqlite?: NodeSqliteDatabase
  /** SQLite file databases only: WAL size and checkpoint counts of the checkpoint worker, for metrics. */
  walStats?: () => WalCheckpointStats
  /**
   * SQLite file databases only: lets a writer on `sqlite` step aside from the checkpoint worker's writer-lock
   * holds without blocking the event loop (WriterGate).
   */
  writerGate?: WriterGate
  close(): Promise<void>
}

const PG_INT8 = 20
const PG_NUMERIC = 1700

/**
 * pg returns int8 and numeric as strings by default. Our stores keep epoch milliseconds and counters in
 * int8 columns, all far below 2^53, so they are parsed as numbers — per pool, not by a global type override.
 */
function numericTypes(driver: typeof pg) {
  return {
    getTypeParser(oid: number, format?: 'text' | 'binary') {
      if (oid === PG_INT8 || oid === PG_NUMERIC) return (value: string) => Number(value)
      // eslint-disable-next-line @typescript-eslint/no-explicit-any -- pg's own overloads are not expressible here
      return (driver.types.getTypeParser as any)(oid, format)
    },
  }
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/

/** Opens the database described by `options`; creates the SQLite file's folder when needed. */
export async function openDatabase<T>(options: OpenDatabaseOptions): Promise<Database<T>> {
  if (options.kind === 'sqlite') {
    if (options.path === ':memory:') {
      const sqlite = new NodeSqliteDatabase(':memory:')
      const db = new Kysely<T>({ dialect: new SqliteDialect({ database: sqlite }) })
      return { db, kind: 'sqlite', sqlite, close: () => db.destroy() }
    }
    const walMaxBytes = options.walMaxBytes ?? DEFAULT_WAL_MAX_BYTES
    if (!Number.isSafeInteger(walMaxBytes) || walMaxBytes < MIN_WAL_MAX_BYTES) {
      throw new TypeError(`walMaxBytes must be an integer of at least ${MIN_WAL_MAX_BYTES} bytes`)
    }
    mkdirSync(dirname(options.path), { recursive: true })
    const sqlite = new NodeSqliteDatabase(options.path, {
      walAutoCheckpoint: false,
      journalSizeLimitBytes: journalSizeLimit(walMaxBytes),
    })
    // For the checkpoint worker to flush the database file outside SQLite's locks. Closed only after the serving
    // connection: closing a descriptor of the file drops every POSIX lock this process holds on it.
    const databaseFd = openSync(options.path, 'r')
    const closeDatabaseFd = () => closeSync(databaseFd)
    let checkpointer: WalCheckpointer
    try {
      checkpointer = await startWalCheckpointer(options.path, {
        walMaxBytes,
        databaseFd,
        ...(options.checkpointWorkerStartBytes !== undefined
          ? { workerStartBytes: options.checkpointWorkerStartBytes }
          : {}),
      })
    } catch (error) {
      sqlite.close()
      closeDatabaseFd()
      throw error
    }
    const db = new Kysely<T>({ dialect: new SqliteDialect({ database: sqlite }) })
    return {
      db,
      kind: 'sqlite',
      sqlite,
      walStats: () => checkpointer.stats(),
      writerGate: checkpointer.writerGate,
      async close() {
        await checkpointer.stop()
        await db.destroy()
        closeDatabaseFd()
      },
    }
  }
  if (options.schema !== undefined && !SCHEMA_NAME.test(options.schema)) {
    throw new TypeError(`invalid PostgreSQL schema name: ${options.schema}`)
  }
  // The driver is imported only here, so a service on SQLite never loads it (docs/performance/journal.md "Idle memory").
  const { default: driver } = await import('pg')
  const startup = startupOptions({
    ...(options.schema ? { search_path: options.schema } : {}),
    ...options.settings,
  })
  const pool = new driver.Pool({
    connectionString: options.url,
    max: options.max ?? 10,
    types: numericTypes(driver),
    ...(startup === undefined ? {} : { options: startup }),
  })
  const namedStatements = new PgNamedStatements()
  // An idle client's error (server restart) must not crash the process; the next query reconnects.
  pool.on('error', () => {})
  // Nor a checked-out client's: a backend that ends between two statements of a transaction (terminated, server
  // restart) emits on the client with no query to fail. The next statement on it fails with the connection error,
  // and the pool discards a client that is no longer queryable when it is released.
  pool.on('connect', (client) => {
    client.on('error', () => {})
    namedStatements.attach(client)
  })
  const db = new Kysely<T>({ dialect: new PostgresDialect({ pool }) })
  return { db, kind: 'postgres', pool, namedStatements, close: () => db.destroy() }
}
