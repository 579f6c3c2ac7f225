/**
 * Token buckets shared by every registry instance on one PostgreSQL (`rate_limit.backend = "postgres"`, table
 * `rate_limit_bucket`, migration 0006). Each operation is ONE statement, atomic under concurrency without a
 * transaction: the upsert reads the row it locks, refills it on the database clock and takes from it in the same
 * step, so two instances racing for the last token can never both get it. The database clock (not each
 * instance's) keeps skewed hosts from minting tokens; `greatest(...)` keeps a bucket's time from moving back.
 *
 * Buckets hold `perMinute` tokens and refill continuously at `perMinute` per minute (the memory limiter's shape,
 * rate-limit/agent-rate-limiter.ts), so a bucket untouched for a minute is full — the same as absent, which is what
 * makes `prune` safe.
 *
 * The store runs on its own small pool whose sessions carry `statement_timeout` and `lock_timeout`
 * (`rate_limit.backend_timeout_ms`): a slow database cancels the statement server-side instead of leaving the
 * connection busy, and the limiter never queues behind the main pool's publish traffic.
 */
import type pg from 'pg'

/** The shared limiters (bucket scopes). */
export type RateLimitScope = 'auth_per_ip' | 'auth_global' | 'challenge_per_agent' | 'agent_write'

/** One bucket: its scope, key and size (tokens per minute). */
export interface BucketRef {
  scope: RateLimitScope
  key: string
  perMinute: number
}

/** The answer of a take: whether a token was taken, and the tokens left. */
export interface TakeResult {
  admitted: boolean
  tokens: number
}

export interface SharedRateLimitStore {
  /** Takes one token when the bucket holds a whole one. Resolves to whether it did, and the tokens left. */
  take(scope: RateLimitScope, key: string, perMinute: number): Promise<TakeResult>
  /**
   * Takes from `first`, then — only when that admitted — from `second`, in ONE statement (the /auth/* per-IP and
   * global budgets: one round trip per request). `second` is undefined when `first` refused. The two buckets
   * must differ.
   */
  takeInOrder(first: BucketRef, second: BucketRef): Promise<{ first: TakeResult; second: TakeResult | undefined }>
  /** Tokens in the bucket now (a full bucket when it has no row); takes nothing, writes nothing. */
  peek(scope: RateLimitScope, key: string, perMinute: number): Promise<number>
  /** Takes one token whatever the bucket holds, never below zero (the caller acted regardless). */
  charge(scope: RateLimitScope, key: string, perMinute: number): Promise<void>
  /** Deletes buckets untouched for a minute (they are full); resolves to how many went. */
  prune(): Promise<number>
  close(): Promise<void>
}

export interface SharedRateLimitPoolOptions {
  url: string
  /** Statement and lock timeout of every session (`rate_limit.backend_timeout_ms`); also the connect timeout. */
  timeoutMs: number
  /** Schema holding the registry tables (tests use throwaway schemas); default the URL's search_path. */
  schema?: string
  /** Connections; the statements are short, a few serve many requests. */
  max?: number
}

const NOW_MS = `(extract(epoch from clock_timestamp()) * 1000)::bigint`
// The bucket's tokens refilled up to now: `b` is the stored row, `excluded.updated_at_ms` the database's now.
const REFILLED = `least($3::float8, b.tokens + greatest(0, excluded.updated_at_ms - b.updated_at_ms) * $3::float8 / 60000.0)`

const TAKE = `insert into rate_limit_bucket as b (scope, bucket_key, tokens, updated_at_ms, admitted)
values ($1, $2, $3::float8 - 1, ${NOW_MS}, true)
on conflict (scope, bucket_key) do update set
  tokens = case when ${REFILLED} >= 1 then ${REFILLED} - 1 else ${REFILLED} end,
  admitted = ${REFILLED} >= 1,
  updated_at_ms = greatest(b.updated_at_ms, excluded.updated_at_ms)
returning tokens, admitted`

// `$p` is the size parameter of the bucket the expression refills.
const refilled = (p: string) =>
  `least(${p}::float8, b.tokens + greatest(0, excluded.updated_at_ms - b.updated_at_ms) * ${p}::float8 / 60000.0)`
const takeUpdate = (p: string) => `on conflict (scope, bucket_key) do update set
  tokens = case when ${refilled(p)} >= 1 then ${refilled(p)} - 1 else ${refilled(p)} end,
  admitted = ${refilled(p)} >= 1,
  updated_at_ms = greatest(b.updated_at_ms, excluded.updated_at_ms)
returning tokens, admitted`

// Data-modifying CTEs: the second insert reads the first's RETURNING row, so it runs only when the first admitted.
const TAKE_IN_ORDER = `with first as (
  insert into rate_limit_bucket as b (scope, bucket_key, tokens, updated_at_ms, admitted)
  values ($1, $2, $3::float8 - 1, ${NOW_MS}, true)
  ${takeUpdate('$3')}
), second as (
  insert into rate_limit_bucket as b (scope, bucket_key, tokens, updated_at_ms, admitted)
  select $4, $5, $6::float8 - 1, ${NOW_MS}, true from first where first.admitted
  ${takeUpdate('$6')}
)
select first.tokens as first_tokens, first.admitted as first_admitted,
  second.tokens as second_tokens, second.admitted as second_admitted
from first left join second on true`

const CHARGE = `insert into rate_limit_bucket as b (scope, bucket_key, tokens, updated_at_ms, admitted)
values ($1, $2, greatest(0, $3::float8 - 1), ${NOW_MS}, true)
on conflict (scope, bucket_key) do update set
  tokens = greatest(0, ${REFILLED} - 1),
  admitted = true,
  updated_at_ms = greatest(b.updated_at_ms, excluded.updated_at_ms)`

const PEEK = `select least($3::float8, tokens + greatest(0, ${NOW_MS} - updated_at_ms) * $3::float8 / 60000.0) as tokens
from rate_limit_bucket where scope = $1 and bucket_key = $2`

const PRUNE = `delete from rate_limit_bucket where updated_at_ms < ${NOW_MS} - 60000`

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/

/**
 * Opens the limiter's own pool on `url`. Nothing connects until the first statement. The driver is imported here,
 * not at the top: a registry without the shared backend never loads it (idle memory, test/architecture.test.ts).
 */
export async function openSharedRateLimitStore(options: SharedRateLimitPoolOptions): Promise<SharedRateLimitStore> {
  if (options.schema !== undefined && !SCHEMA_NAME.test(options.schema)) {
    throw new TypeError(`invalid PostgreSQL schema name: ${options.schema}`)
  }
  const { default: driver } = await import('pg')
  const pool = new driver.Pool({
    connectionString: options.url,
    max: options.max ?? 4,
    statement_timeout: options.timeoutMs,
    lock_timeout: options.timeoutMs,
    connectionTimeoutMillis: options.timeoutMs,
    ...(options.schema ? { options: `-c search_path=${options.schema}` } : {}),
  })
  // An idle client's error (server restart) must not crash the process; the next statement reconnects.
  pool.on('error', () => {})
  return createSharedRateLimitStore(pool, async () => pool.end())
}

/** The store over an existing pool (whose sessions should carry the timeouts); `close` is the owner's. */
export function createSharedRateLimitStore(pool: pg.Pool, close: () => Promise<void>): SharedRateLimitStore {
  return {
    async take(scope, key, perMinute) {
      const result = await pool.query<{ tokens: number; admitted: boolean }>({
        name: 'acdp_rate_limit_take',
        text: TAKE,
        values: [scope, key, perMinute],
      })
      const row = result.rows[0]
      if (row === undefined) throw new Error('rate-limit take returned no row')
      return { admitted: row.admitted, tokens: Math.max(0, Number(row.tokens)) }
    },

    async takeInOrder(first, second) {
      if (first.scope === second.scope && first.key === second.key) {
        throw new TypeError('takeInOrder needs two different buckets')
      }
      const result = await pool.query<{
        first_tokens: number
        first_admitted: boolean
        second_tokens: number | null
        second_admitted: boolean | null
      }>({
        name: 'acdp_rate_limit_take_in_order',
        text: TAKE_IN_ORDER,
        values: [first.scope, first.key, first.perMinute, second.scope, second.key, second.perMinute],
      })
      const row = result.rows[0]
      if (row === undefined) throw new Error('rate-limit take returned no row')
      return {
        first: { admitted: row.first_admitted, tokens: Math.max(0, Number(row.first_tokens)) },
        second:
          row.second_admitted === null
            ? undefined
            : { admitted: row.second_admitted, tokens: Math.max(0, Number(row.second_tokens)) },
      }
    },

    async peek(scope, key, perMinute) {
      const result = await pool.query<{ tokens: number }>({
        name: 'acdp_rate_limit_peek',
        text: PEEK,
        values: [scope, key, perMinute],
      })
      const row = result.rows[0]
      return row === undefined ? perMinute : Math.max(0, Number(row.tokens))
    },

    async charge(scope, key, perMinute) {
      await pool.query({ name: 'acdp_rate_limit_charge', text: CHARGE, values: [scope, key, perMinute] })
    },

    async prune() {
      const result = await pool.query(PRUNE)
      return result.rowCount ?? 0
    },

    close,
  }
}
