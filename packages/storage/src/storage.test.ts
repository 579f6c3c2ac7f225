import { CompiledQuery, sql } from 'kysely'
import { afterEach, describe, expect, it } from 'vitest'
import { type Database, isUniqueViolation, type Migration, migrateToLatest, testDatabaseTargets } from './index.js'
import { startupOptions } from './pg-named-statements.js'

const migrations: Migration[] = [
  {
    name: '0001_items',
    async up(db) {
      await db.schema
        .createTable('item')
        .addColumn('id', 'integer', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull().unique())
        .addColumn('created_at_ms', 'bigint', (c) => c.notNull())
        .execute()
    },
  },
  {
    name: '0002_flag',
    async up(db) {
      await db.schema
        .alterTable('item')
        .addColumn('flag', 'integer', (c) => c.notNull().defaultTo(0))
        .execute()
    },
  },
]

describe.each(testDatabaseTargets())('storage on $name', (target) => {
  let database: Database<any> | undefined
  afterEach(async () => {
    await database?.close()
    database = undefined
  })

  it('applies migrations once and is idempotent on a second run', async () => {
    database = await target.open()
    expect((await migrateToLatest(database, migrations)).applied).toEqual(['0001_items', '0002_flag'])
    expect((await migrateToLatest(database, migrations)).applied).toEqual([])
  })

  it('applies only the migrations added since the last run', async () => {
    database = await target.open()
    await migrateToLatest(database, migrations.slice(0, 1))
    expect((await migrateToLatest(database, migrations)).applied).toEqual(['0002_flag'])
  })

  it('round-trips integers and int8 epoch milliseconds as numbers', async () => {
    database = await target.open()
    await migrateToLatest(database, migrations)
    const ms = 1_790_000_000_123
    await database.db.insertInto('item').values({ id: 1, name: 'a', created_at_ms: ms, flag: 1 }).execute()
    const row = await database.db.selectFrom('item').selectAll().executeTakeFirstOrThrow()
    expect(row).toEqual({ id: 1, name: 'a', created_at_ms: ms, flag: 1 })
    const count = await database.db
      .selectFrom('item')
      .select(sql<number>`count(*)`.as('n'))
      .executeTakeFirstOrThrow()
    expect(count.n).toBe(1)
  })

  it('recognizes a unique violation and rolls the transaction back', async () => {
    database = await target.open()
    await migrateToLatest(database, migrations)
    await database.db.insertInto('item').values({ id: 1, name: 'a', created_at_ms: 1 }).execute()
    const error = await database.db
      .transaction()
      .execute(async (tx) => {
        await tx.insertInto('item').values({ id: 2, name: 'b', created_at_ms: 2 }).execute()
        await tx.insertInto('item').values({ id: 3, name: 'a', created_at_ms: 3 }).execute()
      })
      .catch((e: unknown) => e)
    expect(isUniqueViolation(error)).toBe(true)
    const names = await database.db.selectFrom('item').select('name').orderBy('id').execute()
    expect(names.map((r) => r.name)).toEqual(['a'])
  })

  it('does not call other errors unique violations', async () => {
    database = await target.open()
    const error = await sql`select * from no_such_table`.execute(database.db).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(Error)
    expect(isUniqueViolation(error)).toBe(false)
  })

  it('serves concurrent transactions without losing writes', async () => {
    database = await target.open()
    await migrateToLatest(database, migrations)
    const db = database.db
    await Promise.all(
      Array.from({ length: 25 }, (_, i) =>
        db.transaction().execute(async (tx) => {
          await tx
            .insertInto('item')
            .values({ id: i + 1, name: `n${i}`, created_at_ms: i })
            .execute()
        }),
      ),
    )
    const count = await db
      .selectFrom('item')
      .select(sql<number>`count(*)`.as('n'))
      .executeTakeFirstOrThrow()
    expect(count.n).toBe(25)
  })
})

describe('isUniqueViolation', () => {
  it.each([
    ['postgres 23505', { code: '23505' }, true],
    ['sqlite unique', { code: 'ERR_SQLITE_ERROR', errcode: 2067 }, true],
    ['sqlite primary key', { code: 'ERR_SQLITE_ERROR', errcode: 1555 }, true],
    ['postgres foreign key', { code: '23503' }, false],
    ['null', null, false],
    ['string', 'UNIQUE', false],
  ])('%s → %s', (_name, error, expected) => {
    expect(isUniqueViolation(error)).toBe(expected)
  })
})

describe.each(testDatabaseTargets())('migration failures on $name', (target) => {
  it('keeps nothing of a failing run and names the failing migration', async () => {
    const database = await target.open()
    try {
      const failing: Migration = {
        name: '0003_broken',
        async up(db) {
          await db.schema.createTable('half_done').addColumn('id', 'integer').execute()
          throw new Error('boom')
        },
      }
      await expect(migrateToLatest(database, [...migrations, failing])).rejects.toThrow(/0003_broken/)
      // Nothing of the failed run stays: a clean run applies everything again, and the half-done table is gone.
      expect((await migrateToLatest(database, migrations)).applied).toEqual(['0001_items', '0002_flag'])
      await expect(sql`select * from half_done`.execute(database.db)).rejects.toBeInstanceOf(Error)
    } finally {
      await database.close()
    }
  })
})

describe('concurrent starters on PostgreSQL', () => {
  const postgres = testDatabaseTargets().find((t) => t.name === 'postgres')
  it.runIf(postgres)('apply each migration exactly once', async () => {
    const first = await postgres!.open()
    try {
      // A second pool on the same schema, as a second instance would have.
      const { openDatabase } = await import('./open-database.js')
      const schema = (await sql<{ s: string }>`select current_schema() as s`.execute(first.db)).rows[0]!.s
      const second = await openDatabase<any>({ kind: 'postgres', url: process.env.ACDP_TEST_DATABASE_URL!, schema })
      try {
        const [a, b] = await Promise.all([migrateToLatest(first, migrations), migrateToLatest(second, migrations)])
        expect([...a.applied, ...b.applied].sort()).toEqual(['0001_items', '0002_flag'])
      } finally {
        await second.close()
      }
    } finally {
      await first.close()
    }
  })
})

describe('named statements and settings on PostgreSQL', () => {
  const postgres = testDatabaseTargets().find((t) => t.name === 'postgres')
  it.runIf(postgres)(
    'prepares a registered text once per connection and answers as the unnamed text does',
    async () => {
      const database = await postgres!.open()
      try {
        await migrateToLatest(database, migrations)
        await database.db.insertInto('item').values({ id: 7, name: 'seven', created_at_ms: 70 }).execute()
        const text = 'select id, name, created_at_ms from item where id = $1'
        const unnamed = (await database.db.executeQuery(CompiledQuery.raw(text, [7]))).rows
        database.namedStatements!.add(text)
        const client = await database.pool!.connect()
        try {
          const prepared = async () =>
            (
              await client.query<{ name: string }>(
                "select name from pg_prepared_statements where statement like 'select id%'",
              )
            ).rows
          expect(await prepared()).toEqual([])
          // Twice on one connection: prepared by the first execution, reused (not prepared again) by the second.
          expect((await client.query(text, [7])).rows).toEqual(unnamed)
          expect((await client.query(text, [8])).rows).toEqual([])
          expect(await prepared()).toEqual([{ name: database.namedStatements!.nameOf(text) }])
        } finally {
          client.release()
        }
        // Through Kysely too (its driver calls client.query(text, values)).
        expect((await database.db.executeQuery(CompiledQuery.raw(text, [7]))).rows).toEqual([
          { id: 7, name: 'seven', created_at_ms: 70 },
        ])
      } finally {
        await database.close()
      }
    },
  )

  it.runIf(postgres)('applies the settings to every connection', async () => {
    const { openDatabase } = await import('./open-database.js')
    const database = await openDatabase<any>({
      kind: 'postgres',
      url: process.env.ACDP_TEST_DATABASE_URL!,
      max: 2,
      settings: { plan_cache_mode: 'force_custom_plan', application_name: 'acdp-storage-test' },
    })
    try {
      const shown = await Promise.all(
        [0, 1].map(() =>
          sql<{ mode: string; app: string }>`select current_setting('plan_cache_mode') as mode,
            current_setting('application_name') as app, pg_sleep(0.05)`.execute(database.db),
        ),
      )
      expect(shown.map((r) => [r.rows[0]!.mode, r.rows[0]!.app])).toEqual([
        ['force_custom_plan', 'acdp-storage-test'],
        ['force_custom_plan', 'acdp-storage-test'],
      ])
    } finally {
      await database.close()
    }
  })
})

describe('startupOptions', () => {
  it('joins settings as -c pairs and refuses what would need escaping', () => {
    expect(startupOptions({ search_path: 'acdp_t_1', plan_cache_mode: 'auto' })).toBe(
      '-c search_path=acdp_t_1 -c plan_cache_mode=auto',
    )
    expect(startupOptions({})).toBeUndefined()
    expect(() => startupOptions({ search_path: 'a b' })).toThrow(TypeError)
    expect(() => startupOptions({ 'bad name': 'x' })).toThrow(TypeError)
  })
})
