import { afterEach, describe, expect, it } from 'vitest'
import { NodeSqliteDatabase, STATEMENT_BYTES_PER_SQL_CHAR, STATEMENT_CACHE_BYTES } from './sqlite-database.js'

/** One INSERT of `rows` rows of 19 parameters, the shape of the control plane's batched event writes. */
function multiRowInsert(rows: number): string {
  const columns = Array.from({ length: 19 }, (_, i) => `c${i}`)
  const tuple = `(${columns.map(() => '?').join(', ')})`
  return `insert into t (${columns.join(', ')}) values ${Array.from({ length: rows }, () => tuple).join(', ')}`
}

function values(rows: number, batch: number): number[] {
  return Array.from({ length: rows * 19 }, (_, i) => batch * 100_000 + i)
}

describe('NodeSqliteDatabase statement cache', () => {
  let database: NodeSqliteDatabase | undefined
  afterEach(() => {
    database?.close()
    database = undefined
  })

  function open(): NodeSqliteDatabase {
    database = new NodeSqliteDatabase(':memory:')
    database.raw.exec(`create table t (${Array.from({ length: 19 }, (_, i) => `c${i} integer`).join(', ')})`)
    return database
  }

  it('keeps the estimated native bytes of its statements within the bound under every batch size', () => {
    const db = open()
    let written = 0
    for (let round = 0; round < 2; round++) {
      for (let rows = 1; rows <= 256; rows++) {
        db.prepare(multiRowInsert(rows)).run(values(rows, rows))
        written += rows
        const { bytes } = db.statementCache
        expect(bytes).toBeLessThanOrEqual(STATEMENT_CACHE_BYTES)
      }
    }
    // Without the byte bound all 256 texts stayed (≈ 5 M characters, ≈ 300 MiB estimated).
    const all = Array.from({ length: 256 }, (_, i) => multiRowInsert(i + 1).length).reduce((a, b) => a + b, 0)
    expect(all * STATEMENT_BYTES_PER_SQL_CHAR).toBeGreaterThan(STATEMENT_CACHE_BYTES)
    expect(db.statementCache.entries).toBeLessThan(256)
    // Evicted shapes were prepared again and ran: every row of both rounds is stored.
    expect(db.raw.prepare('select count(*) as n from t').get()).toEqual({ n: written })
  })

  it('reuses a kept statement and keeps the most recently used ones', () => {
    const db = open()
    const small = 'select count(*) as n from t'
    const first = db.prepare(small)
    for (let rows = 200; rows <= 256; rows++) {
      db.prepare(multiRowInsert(rows))
      db.prepare(small)
    }
    expect(db.prepare(small)).toBe(first)
  })

  it('prepares a statement larger than the bound for each use without keeping it', () => {
    const db = open()
    const large = `select '${'x'.repeat(STATEMENT_CACHE_BYTES / STATEMENT_BYTES_PER_SQL_CHAR)}' as v`
    const statement = db.prepare(large)
    expect(statement.all([])).toEqual([{ v: 'x'.repeat(STATEMENT_CACHE_BYTES / STATEMENT_BYTES_PER_SQL_CHAR) }])
    expect(db.statementCache).toEqual({ entries: 0, bytes: 0 })
    expect(db.prepare(large)).not.toBe(statement)
  })

  it('still bounds many small statements by count', () => {
    const db = open()
    for (let i = 0; i < 2_000; i++) expect(db.prepare(`select ${i} as v`).all([])).toEqual([{ v: i }])
    expect(db.statementCache.entries).toBe(512)
    expect(db.statementCache.bytes).toBeLessThanOrEqual(STATEMENT_CACHE_BYTES)
  })
})
