/**
 * Raw prepared statements on the registry's SQLite connection, for the hot paths (the group-commit writer and
 * the per-request reads): a statement runs straight on node:sqlite, without Kysely's per-call query pipeline.
 *
 * Safe on the connection Kysely also uses because the registry never holds a Kysely transaction open on SQLite
 * (see sqlite-publish-writer.ts): a statement run here can never land inside someone else's transaction.
 */
import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite'
import type { CompiledQuery } from 'kysely'

export class SqliteStatements {
  readonly raw: DatabaseSync
  /** One prepared statement per SQL text; the texts are the store's fixed query shapes, a small closed set. */
  readonly #prepared = new Map<string, StatementSync>()

  constructor(raw: DatabaseSync) {
    this.raw = raw
  }

  /** The prepared statement for `text` (prepared on first use). Throws SQLite's error for invalid SQL. */
  statement(text: string): StatementSync {
    let statement = this.#prepared.get(text)
    if (statement === undefined) {
      statement = this.raw.prepare(text)
      this.#prepared.set(text, statement)
    }
    return statement
  }

  /** Runs a compiled write; returns how many rows it changed. */
  run(query: CompiledQuery): number {
    return Number(this.statement(query.sql).run(...bound(query)).changes)
  }

  /** Runs a compiled read; rows come back as plain objects keyed by column name. */
  all<Row>(query: CompiledQuery): Row[] {
    return this.statement(query.sql).all(...bound(query)) as Row[]
  }
}

/** The store binds only strings, finite numbers and null (rows.ts), all of which node:sqlite takes as they are. */
function bound(query: CompiledQuery): SQLInputValue[] {
  return query.parameters as SQLInputValue[]
}
