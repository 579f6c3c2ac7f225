/**
 * The durable cursor of each polled revocation feed (unix ms of the last page applied whole), read and written
 * the same way by both servers over Kysely on SQLite and PostgreSQL. Every call is one autocommit statement.
 *
 * The two servers' cursor tables are not the same table under two names, and their migrations stay as they are,
 * so only the query shape is shared and each server names its own columns beside `cursor_ms`:
 * - the key differs in meaning: the control plane keys `revocation_cursors` by the feed's issuer, the registry
 *   keys `auth_revocation_feed_cursor` by the feed's URL (two feeds may speak for one issuer) and keeps the
 *   issuer in a column beside it (`alongside`);
 * - the stamp of the last move is `updated_at` at the control plane and `updated_at_ms` at the registry;
 * - the registry moves its cursor only forward, so an instance holding an older page cannot set it back; the
 *   control plane stores what it is given (`forwardOnly`).
 */
import type { Kysely } from 'kysely'

/** A server's cursor table: its name and the names of its columns beside `cursor_ms`. */
export interface FeedCursorTable<Table extends string = string> {
  table: Table
  /** The primary key: what names one feed. */
  keyColumn: string
  /** Unix ms of the cursor's last write. */
  updatedAtColumn: string
  /** True: a write that would move the cursor back changes nothing. False: every write replaces the row. */
  forwardOnly: boolean
}

/** A feed's cursor and the unix ms it was last written. */
export interface FeedCursorState {
  cursorMs: number
  updatedAtMs: number
}

export interface FeedCursorStore {
  /** The feed's cursor (unix ms), or undefined before its first page applied. */
  read(key: string): Promise<number | undefined>
  /** The feed's cursor and when it was last written, or undefined before its first page applied. */
  readState(key: string): Promise<FeedCursorState | undefined>
  /**
   * Writes the feed's cursor (upsert on the key). `alongside` are further text columns written with it, on
   * insert and on update alike.
   */
  write(key: string, cursorMs: number, nowMs: number, alongside?: Readonly<Record<string, string>>): Promise<void>
}

/** Any cursor table: the names are the server's, so the kit sees only text and integer columns. */
type CursorTables = Record<string, Record<string, string | number>>

export function createFeedCursorStore<Database>(
  db: Kysely<Database>,
  shape: FeedCursorTable<keyof Database & string>,
): FeedCursorStore {
  const tables = db as unknown as Kysely<CursorTables>
  const table: string = shape.table
  const { keyColumn, updatedAtColumn } = shape
  return {
    async read(key) {
      const row = await tables.selectFrom(table).select('cursor_ms').where(keyColumn, '=', key).executeTakeFirst()
      return row === undefined ? undefined : Number(row['cursor_ms'])
    },

    async readState(key) {
      const row = await tables
        .selectFrom(table)
        .select(['cursor_ms', updatedAtColumn])
        .where(keyColumn, '=', key)
        .executeTakeFirst()
      return row === undefined
        ? undefined
        : { cursorMs: Number(row['cursor_ms']), updatedAtMs: Number(row[updatedAtColumn]) }
    },

    async write(key, cursorMs, nowMs, alongside = {}) {
      const moved = { ...alongside, cursor_ms: cursorMs, [updatedAtColumn]: nowMs }
      await tables
        .insertInto(table)
        .values({ [keyColumn]: key, ...moved })
        .onConflict((conflict) => {
          const update = conflict.column(keyColumn).doUpdateSet(moved)
          return shape.forwardOnly ? update.where(`${table}.cursor_ms`, '<', cursorMs) : update
        })
        .execute()
    },
  }
}
