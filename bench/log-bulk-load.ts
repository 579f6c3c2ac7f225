/**
 * Bulk loader for transparency-log benchmarks (bench/registry.ts `BENCH_LOG_LEAVES`, bench/log-proofs.ts).
 *
 * Writes `count` synthetic leaves, every perfect-subtree hash and the tree size straight into a migrated,
 * otherwise unused registry SQLite file, exactly as `count` logged publishes would have left the log tables.
 * Context rows are not written: proofs by leaf_index do not need them (no leaf is echoed).
 *
 * Built for 10^7 leaves: multi-row prepared inserts (one statement step per LEAF_BATCH leaves or NODE_BATCH
 * nodes instead of one per row), one transaction in rollback-journal mode (every page written once, not via
 * the WAL) and no fsync while loading — the file is scratch, so a crash mid-load only loses the bench run. The
 * WAL journal mode the registry expects is restored at the end.
 *
 * With `checkpoint`, it also stores a checkpoint over the loaded tree signed with the registry's receipt key,
 * so the registry's start-up self-check (scope `since-checkpoint`, log-self-check.ts) anchors on it instead of
 * rehashing all n leaves. It is the checkpoint the registry itself would sign after a passing full check: the
 * root is the fold of the hashes computed here from the leaf texts written here, under the registry's log_id
 * and key. The start-up check still verifies its signature, that the stored subtrees fold to its root, and
 * 64 random leaves against it.
 */
import { buildCheckpoint, computeLeafHash, computeNodeHash, type SigningKey, signCheckpoint } from '@acdp/protocol'
import { DatabaseSync, type StatementSync } from 'node:sqlite'

/** Leaves per multi-row insert (3 parameters each). */
const LEAF_BATCH = 256
/** Nodes per multi-row insert (2 parameters each). */
const NODE_BATCH = 512

export interface BulkLoadOptions {
  /** A registry SQLite file already migrated (openRegistryStore) and not open anywhere else. */
  path: string
  count: number
  /** The registry's authority: leaves name it as their origin. */
  authority: string
  /** Sign and store a checkpoint over the loaded tree (the registry's log_id and receipt key). */
  checkpoint?: { logId: string; key: SigningKey }
  /** Tree sizes (1..count) whose roots to return, computed here: lets a bench verify proofs independently. */
  rootsAt?: Iterable<number>
}

export interface BulkLoadResult {
  /** MTH of all `count` leaves. */
  root: Uint8Array
  /** The root at every size asked for in `rootsAt`. */
  rootsAt: Map<number, Uint8Array>
  milliseconds: number
}

const hex = (n: number, width: number) => n.toString(16).padStart(width, '0')

/**
 * The JCS text of synthetic leaf `i` of a `count`-leaf log (RFC-ACDP-0012 §4 members in code-point order; every
 * value is plain ASCII, so JSON.stringify spells it canonically). Distinct for every i.
 */
export function syntheticLeafJson(i: number, count: number, authority: string): string {
  return (
    `{"content_hash":"sha256:${hex(i, 64)}","created_at":"2026-11-24T00:00:00.000Z",` +
    `"ctx_id":${JSON.stringify(syntheticCtxId(i, authority))},` +
    `"key_fingerprint":"sha256:${'0'.repeat(64)}","leaf_version":"acdp-log-leaf/1",` +
    `"lineage_id":"lin:sha256:${hex(i, 64)}","origin_registry":"${authority}","receipt_hash":"sha256:${hex(count - i, 64)}"}`
  )
}

/** The ctx_id synthetic leaf `i` names (the `log_leaf.ctx_id` column). */
function syntheticCtxId(i: number, authority: string): string {
  return `acdp://${authority}/${hex(i, 8)}-0000-4000-8000-${hex(i, 12)}`
}

export function bulkLoadLog(options: BulkLoadOptions): BulkLoadResult {
  const { path, count, authority } = options
  if (!Number.isSafeInteger(count) || count < 1) throw new RangeError('count must be a positive integer')
  const start = performance.now()
  const wanted = [...new Set(options.rootsAt ?? [])].sort((a, b) => a - b)
  if (wanted.some((size) => !Number.isSafeInteger(size) || size < 1 || size > count)) {
    throw new RangeError(`rootsAt sizes must be within 1..${count}`)
  }
  const db = new DatabaseSync(path)
  try {
    const size = (db.prepare('select count(*) as n from log_leaf').get() as { n: number }).n
    if (size !== 0) throw new Error(`the log in ${path} already holds ${size} leaves`)
    // Out of WAL mode (which would write every page twice: to the WAL, then back), into a rollback journal:
    // pages appended past the original end of the file are never journalled, so loading into an empty log
    // writes each page once. (node:sqlite's defensive mode refuses journal_mode = OFF.) No fsync: scratch file.
    setJournalMode(db, 'delete')
    db.exec(
      'PRAGMA synchronous = OFF; PRAGMA locking_mode = EXCLUSIVE; PRAGMA cache_size = -524288; PRAGMA temp_store = MEMORY',
    )
    const leaves = new BatchInserter(db, 'log_leaf (leaf_index, ctx_id, leaf_json)', 3, LEAF_BATCH)
    // Nodes are completed here in post-order, which is their storage key (migration 0007): a running counter.
    const nodes = new BatchInserter(db, 'log_node (pos, hash)', 2, NODE_BATCH)
    let position = 0
    const encoder = new TextEncoder()
    // Perfect subtrees of the prefix written so far, largest first: their right fold is the current root.
    const frontier: Array<{ level: number; hash: Uint8Array }> = []
    const rootsAt = new Map<number, Uint8Array>()
    let nextWanted = 0
    db.exec('BEGIN')
    for (let i = 0; i < count; i++) {
      const leafJson = syntheticLeafJson(i, count, authority)
      leaves.add(i, syntheticCtxId(i, authority), leafJson)
      let hash = computeLeafHash(encoder.encode(leafJson))
      nodes.add(position++, hash)
      let level = 0
      while (frontier.length > 0 && (frontier.at(-1) as { level: number }).level === level) {
        hash = computeNodeHash((frontier.pop() as { hash: Uint8Array }).hash, hash)
        level += 1
        nodes.add(position++, hash)
      }
      frontier.push({ level, hash })
      while (wanted[nextWanted] === i + 1) {
        rootsAt.set(i + 1, foldFrontier(frontier))
        nextWanted++
      }
    }
    leaves.flush()
    nodes.flush()
    const root = foldFrontier(frontier)
    if (options.checkpoint) {
      const { logId, key } = options.checkpoint
      const checkpoint = signCheckpoint(
        buildCheckpoint({ logId, treeSize: count, rootHash: root, timestamp: new Date() }),
        key,
      )
      db.prepare('insert into log_checkpoint (tree_size, checkpoint_json) values (?, ?)').run(
        count,
        JSON.stringify(checkpoint),
      )
    }
    db.exec('COMMIT')
    setJournalMode(db, 'wal')
    return { root, rootsAt, milliseconds: performance.now() - start }
  } finally {
    db.close()
  }
}

/** Rows of `columns` values buffered into one `insert … values (…), (…), …` statement of `batch` rows. */
class BatchInserter {
  readonly #full: StatementSync
  readonly #one: StatementSync
  readonly #batch: number
  readonly #columns: number
  readonly #values: Array<number | string | Uint8Array> = []

  constructor(db: DatabaseSync, target: string, columns: number, batch: number) {
    this.#batch = batch
    this.#columns = columns
    const row = `(${Array(columns).fill('?').join(', ')})`
    this.#full = db.prepare(`insert into ${target} values ${Array(batch).fill(row).join(', ')}`)
    this.#one = db.prepare(`insert into ${target} values ${row}`)
  }

  add(...row: Array<number | string | Uint8Array>): void {
    this.#values.push(...row)
    if (this.#values.length === this.#batch * this.#columns) {
      this.#full.run(...this.#values)
      this.#values.length = 0
    }
  }

  flush(): void {
    for (let at = 0; at < this.#values.length; at += this.#columns) {
      this.#one.run(...this.#values.slice(at, at + this.#columns))
    }
    this.#values.length = 0
  }
}

/** Sets the journal mode and checks it took (SQLite answers the mode still in force when it refuses one). */
function setJournalMode(db: DatabaseSync, mode: 'delete' | 'wal'): void {
  const row = db.prepare(`PRAGMA journal_mode = ${mode}`).get() as { journal_mode: string } | undefined
  if (row?.journal_mode !== mode) throw new Error(`SQLite kept journal_mode ${row?.journal_mode}, not ${mode}`)
}

function foldFrontier(frontier: ReadonlyArray<{ hash: Uint8Array }>): Uint8Array {
  let acc = (frontier.at(-1) as { hash: Uint8Array }).hash
  for (let i = frontier.length - 2; i >= 0; i--) acc = computeNodeHash((frontier[i] as { hash: Uint8Array }).hash, acc)
  return acc
}
