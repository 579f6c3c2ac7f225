import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'kysely'
import { afterEach, describe, expect, it } from 'vitest'
import { openDatabase } from './open-database.js'

describe('file-backed SQLite', () => {
  const dirs: string[] = []
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
  })

  it('never checkpoints on the serving connection and lets the worker copy WAL pages into the file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'acdp-wal-'))
    dirs.push(dir)
    const path = join(dir, 'db.sqlite')
    const database = await openDatabase<any>({ kind: 'sqlite', path })
    const setting = await sql<{ wal_autocheckpoint: number }>`PRAGMA wal_autocheckpoint`.execute(database.db)
    expect(setting.rows[0]?.wal_autocheckpoint).toBe(0)

    await sql`CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT NOT NULL)`.execute(database.db)
    const sizeBefore = statSync(path).size
    for (let i = 0; i < 200; i++) await sql`INSERT INTO t (v) VALUES (${'x'.repeat(500)})`.execute(database.db)

    // The worker checkpoints every 250 ms; wait (bounded) until the database file has grown.
    const deadline = Date.now() + 5_000
    while (statSync(path).size <= sizeBefore && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
    expect(statSync(path).size).toBeGreaterThan(sizeBefore)

    await database.close()
    const reopened = await openDatabase<any>({ kind: 'sqlite', path })
    const count = await sql<{ n: number }>`SELECT count(*) AS n FROM t`.execute(reopened.db)
    expect(count.rows[0]?.n).toBe(200)
    await reopened.close()
  })
})
