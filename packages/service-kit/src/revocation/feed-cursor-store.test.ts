/** The feed-cursor store on SQLite and, with ACDP_TEST_DATABASE_URL, PostgreSQL, over both servers' table shapes. */
import { type Database, testDatabaseTargets } from '@acdp/storage'
import { afterEach, describe, expect, it } from 'vitest'
import { createFeedCursorStore } from './feed-cursor-store.js'

/** The two shapes the servers' migrations create: keyed by issuer, and keyed by URL with the issuer beside it. */
interface CursorTables {
  by_issuer: { issuer: string; cursor_ms: number; updated_at: number }
  by_url: { feed_url: string; issuer: string; cursor_ms: number; updated_at_ms: number }
}

const URL_A = 'https://a.example/auth/revocations'

describe.each(testDatabaseTargets())('feed cursor store on $name', (target) => {
  let database: Database<CursorTables> | undefined
  afterEach(async () => {
    await database?.close()
    database = undefined
  })

  async function open() {
    database = (await target.open()) as Database<CursorTables>
    const { db } = database
    await db.schema
      .createTable('by_issuer')
      .addColumn('issuer', 'text', (c) => c.primaryKey())
      .addColumn('cursor_ms', 'bigint', (c) => c.notNull())
      .addColumn('updated_at', 'bigint', (c) => c.notNull())
      .execute()
    await db.schema
      .createTable('by_url')
      .addColumn('feed_url', 'text', (c) => c.primaryKey())
      .addColumn('issuer', 'text', (c) => c.notNull())
      .addColumn('cursor_ms', 'bigint', (c) => c.notNull())
      .addColumn('updated_at_ms', 'bigint', (c) => c.notNull())
      .execute()
    return db
  }

  it('stores what it is given when not forward-only, a move back included', async () => {
    const db = await open()
    const cursors = createFeedCursorStore(db, {
      table: 'by_issuer',
      keyColumn: 'issuer',
      updatedAtColumn: 'updated_at',
      forwardOnly: false,
    })
    expect(await cursors.read('peer-a')).toBeUndefined()
    expect(await cursors.readState('peer-a')).toBeUndefined()
    await cursors.write('peer-a', 1234, 5)
    expect(await cursors.readState('peer-a')).toEqual({ cursorMs: 1234, updatedAtMs: 5 })
    await cursors.write('peer-a', 1000, 9)
    expect(await cursors.readState('peer-a')).toEqual({ cursorMs: 1000, updatedAtMs: 9 })
    expect(await cursors.read('peer-b')).toBeUndefined()
  })

  it('moves a forward-only cursor only forward, writing the columns beside it with each move', async () => {
    const db = await open()
    const cursors = createFeedCursorStore(db, {
      table: 'by_url',
      keyColumn: 'feed_url',
      updatedAtColumn: 'updated_at_ms',
      forwardOnly: true,
    })
    await cursors.write(URL_A, 20, 1, { issuer: 'did:web:a.example' })
    await cursors.write(URL_A, 10, 2, { issuer: 'did:web:stale.example' })
    expect(await cursors.readState(URL_A)).toEqual({ cursorMs: 20, updatedAtMs: 1 })
    await cursors.write(URL_A, 30, 3, { issuer: 'did:web:renamed.example' })
    expect(await cursors.read(URL_A)).toBe(30)
    const row = await db.selectFrom('by_url').selectAll().executeTakeFirstOrThrow()
    expect({ ...row, cursor_ms: Number(row.cursor_ms), updated_at_ms: Number(row.updated_at_ms) }).toEqual({
      feed_url: URL_A,
      issuer: 'did:web:renamed.example',
      cursor_ms: 30,
      updated_at_ms: 3,
    })
  })
})
