/**
 * Samples pg_stat_activity of the bench's throwaway databases (names `acdp_bench_*`) every 50 ms for
 * BENCH_SAMPLE_SECONDS (default 60) and prints, per database, how often its client backends were in each state and
 * wait event: where a PostgreSQL ingest spends its time (working, waiting on a row lock, or idle in a transaction
 * while the client computes). Loopback only; read-only; stops by itself.
 *
 *   npx node bench/pg-activity-sample.ts   # while bench/control-plane.ts runs
 */
const { default: pg } = await import('pg')
const url = process.env['BENCH_PG_ADMIN_URL'] ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const seconds = Number(process.env['BENCH_SAMPLE_SECONDS'] ?? 60)
const client = new pg.Client({ connectionString: url })
await client.connect()
const counts = new Map<string, Map<string, number>>()
const samples = new Map<string, number>()
const deadline = Date.now() + seconds * 1000
while (Date.now() < deadline) {
  const { rows } = await client.query<{ datname: string; state: string; wait: string }>(
    `SELECT datname, coalesce(state, '?') AS state,
            coalesce(wait_event_type || ':' || wait_event, 'cpu') AS wait
       FROM pg_stat_activity
      WHERE datname LIKE 'acdp_bench_%' AND backend_type = 'client backend' AND pid <> pg_backend_pid()`,
  )
  const seen = new Set<string>()
  for (const row of rows) {
    seen.add(row.datname)
    const key = row.state === 'active' ? `active ${row.wait}` : row.state
    const byKey = counts.get(row.datname) ?? new Map<string, number>()
    byKey.set(key, (byKey.get(key) ?? 0) + 1)
    counts.set(row.datname, byKey)
  }
  for (const name of seen) samples.set(name, (samples.get(name) ?? 0) + 1)
  await new Promise((resolve) => setTimeout(resolve, 50))
}
await client.end()
for (const [name, byKey] of counts) {
  const n = samples.get(name) ?? 1
  const parts = [...byKey.entries()]
    .sort((a, b) => b[1] - a[1])
    .map(([key, count]) => `${key} ${(count / n).toFixed(2)}`)
  console.log(`${name}: ${n} samples; mean backends per state: ${parts.join(', ')}`)
}
