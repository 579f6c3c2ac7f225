/**
 * Parts of a `GET /log/proof` request timed in isolation, on a real-shaped store (docs/performance/journal.md "Proofs over
 * HTTP at 1M: per-request cost (session 5)"): `npm run bench:log-proof-parts`.
 *
 * Bulk-loads BENCH_LOG_LEAVES (default 1,000,000) leaves (log-bulk-load.ts) into a migrated registry SQLite file,
 * then gives every leaf a `context` row (≈ 0.9 KB body, as a publish would) — the HTTP benchmarks' synthetic leaves
 * have none — and backfills migration 0008's leaf facts with the migration's own statement (timed). Then, on one
 * connection with the registry's pragmas, times per call, passes interleaved A B B A with fresh pseudo-random
 * leaf indexes per pass:
 *
 *   - the leaf lookup of an inclusion proof: before 0008 (`log_leaf` ⋈ `context` ⋈ `log_node`) and after
 *     (`log_leaf` alone);
 *   - the tree-size read every proof made before session 5 (since migration 0007 on SQLite: the end of `log_leaf`);
 *   - the proof path's JSON: one `formatSha256` per hash joined, against one hex pass over one buffer.
 *
 * CPU per call is process.threadCpuUsage; the scratch directory is deleted at the end.
 */
import { createHash } from 'node:crypto'
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'

const COUNT = Number(process.env['BENCH_LOG_LEAVES'] ?? 1_000_000)
const CALLS = Number(process.env['BENCH_CALLS'] ?? 100_000)
/** A variable specifier: Node runs the .ts file itself, which TypeScript only accepts in type positions. */
const LOADER_MODULE: string = './log-bulk-load.ts'

const { formatSha256 } = await import('@acdp/protocol')
const { logNodePosition, openRegistryStore } = await import('@acdp/registry')
const { bulkLoadLog } = (await import(LOADER_MODULE)) as typeof import('./log-bulk-load.ts')

const OLD_LEAF_SQL =
  'select "l"."leaf_index", "l"."ctx_id", "l"."leaf_json", "n"."hash", "c"."visibility", "c"."agent_id", ' +
  '"c"."audience_json", "c"."tenant_id" from "log_leaf" as "l" inner join "context" as "c" on "c"."ctx_id" = "l"."ctx_id" ' +
  'inner join "log_node" as "n" on "n"."pos" = ? where "l"."leaf_index" = ?'
const NEW_LEAF_SQL =
  'select "leaf_index", "ctx_id", "leaf_json", "visibility", "agent_id", "audience_json", "tenant_id" from "log_leaf" ' +
  'where "leaf_index" = ? and "tenant_id" is not null'
const BACKFILL_SQL =
  'update log_leaf set tenant_id = c.tenant_id, visibility = c.visibility, agent_id = c.agent_id, ' +
  'audience_json = c.audience_json from context as c where c.ctx_id = log_leaf.ctx_id'

function micros(run: () => void): number {
  const before = process.threadCpuUsage()
  run()
  const after = process.threadCpuUsage(before)
  return (after.user + after.system) / CALLS
}

/** Leaf index of call k of pass `pass`: consecutive calls far apart, every pass a different sequence. */
function index(pass: number, k: number): number {
  return (k * 2_654_435_761 + pass * 97_531) % COUNT
}

const dir = mkdtempSync(join(tmpdir(), 'acdp-bench-proof-parts-'))
try {
  const path = join(dir, 'registry.db')
  await (await openRegistryStore({ backend: 'sqlite', sqlite_path: path } as never)).close()
  const loaded = bulkLoadLog({ path, count: COUNT, authority: 'bench.registry.test' })
  console.log(`bulk-loaded ${COUNT.toLocaleString('en-US')} leaves in ${Math.round(loaded.milliseconds)} ms`)

  const db = new DatabaseSync(path)
  db.exec(
    'PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA cache_size = -16384; PRAGMA temp_store = MEMORY',
  )
  let started = performance.now()
  db.exec('BEGIN')
  db.prepare(
    `insert into context (ctx_id, lineage_id, version, agent_id, context_type, visibility, audience_json, title,
       search_text, content_hash, created_at, created_at_ms, body_text, leaf_index)
     select ctx_id, 'lin:sha256:' || printf('%064x', leaf_index), 1, 'did:web:agents.example.com:a' || (leaf_index % 64),
       'data_snapshot', 'public', '[]', 'title ' || leaf_index, 'title ' || leaf_index,
       'sha256:' || printf('%064x', leaf_index), '2026-11-24T00:00:00.000Z', 1767225600000 + leaf_index,
       '{"body":"' || hex(randomblob(440)) || '"}', leaf_index
     from log_leaf`,
  ).run()
  db.exec('COMMIT')
  console.log(`context rows for every leaf in ${Math.round(performance.now() - started)} ms`)
  started = performance.now()
  db.prepare(BACKFILL_SQL).run()
  console.log(
    `migration 0008 backfill of ${COUNT.toLocaleString('en-US')} leaves in ${Math.round(performance.now() - started)} ms`,
  )
  db.exec('PRAGMA wal_checkpoint(TRUNCATE)')
  console.log(`file ${(statSync(path).size / 2 ** 30).toFixed(2)} GiB; load average ${loadavg()[0]?.toFixed(2)}`)

  const oldLeaf = db.prepare(OLD_LEAF_SQL)
  const newLeaf = db.prepare(NEW_LEAF_SQL)
  const size = db.prepare('select coalesce(max("leaf_index") + 1, 0) as "tree_size" from "log_leaf" where ? = 1')
  const hashes = (n: number) =>
    Array.from({ length: n }, (_, i) => new Uint8Array(createHash('sha256').update(`${i}`).digest()))
  const path20 = hashes(20)
  const joined = (list: Uint8Array[]) => `[${list.map((h) => `"${formatSha256(h)}"`).join(',')}]`
  const onePass = (list: Uint8Array[]) => {
    const all = Buffer.allocUnsafe(list.length * 32)
    list.forEach((h, i) => all.set(h, i * 32))
    const hex = all.toString('hex')
    let out = '["sha256:' + hex.slice(0, 64)
    for (let i = 1; i < list.length; i++) out += '","sha256:' + hex.slice(i * 64, i * 64 + 64)
    return out + '"]'
  }
  if (joined(path20) !== onePass(path20)) throw new Error('the two encodings differ')

  let sink = 0
  const parts: Record<string, () => number> = {
    'leaf lookup, before 0008 (join)': () =>
      micros(() => {
        for (let k = 0; k < CALLS; k++) {
          const leafIndex = index(pass, k)
          sink += (oldLeaf.get(logNodePosition(0, leafIndex), leafIndex) as object | undefined) ? 1 : 0
        }
      }),
    'leaf lookup, after 0008 (leaf row)': () =>
      micros(() => {
        for (let k = 0; k < CALLS; k++) sink += (newLeaf.get(index(pass, k)) as object | undefined) ? 1 : 0
      }),
    'tree-size statement': () =>
      micros(() => {
        for (let k = 0; k < CALLS; k++) sink += Number((size.get(1) as { tree_size: number }).tree_size)
      }),
    'proof path JSON, 20 hashes, formatSha256 each': () =>
      micros(() => {
        for (let k = 0; k < CALLS; k++) sink += joined(path20).length
      }),
    'proof path JSON, 20 hashes, one hex pass': () =>
      micros(() => {
        for (let k = 0; k < CALLS; k++) sink += onePass(path20).length
      }),
  }
  let pass = 0
  const results = new Map<string, number[]>()
  for (const order of [
    [0, 1],
    [1, 0],
    [1, 0],
    [0, 1],
  ]) {
    for (const [a, b] of [
      [0, 1],
      [3, 4],
    ] as const) {
      for (const which of order) {
        const name = Object.keys(parts)[which === 0 ? a : b] as string
        pass++
        results.set(name, [...(results.get(name) ?? []), (parts[name] as () => number)()])
      }
    }
    pass++
    results.set('tree-size statement', [
      ...(results.get('tree-size statement') ?? []),
      (parts['tree-size statement'] as () => number)(),
    ])
  }
  for (const [name, values] of results)
    console.log(`${name.padEnd(48)} ${values.map((v) => `${v.toFixed(2)} µs`).join(' / ')}`)
  console.log(
    `(checksum ${sink}; ${CALLS.toLocaleString('en-US')} calls per pass; load average ${loadavg()[0]?.toFixed(2)})`,
  )
  db.close()
} finally {
  rmSync(dir, { recursive: true, force: true })
}
