/**
 * Reads of the transparency log (RFC-ACDP-0012 §8): tree size, perfect-subtree hashes, leaves and signed
 * checkpoints. Nodes are keyed by post-order position (log-node-position.ts); every node a proof needs is
 * fetched with one query: on SQLite a prepared `pos IN (…)` statement straight on node:sqlite, on PostgreSQL
 * through Kysely.
 */
import type { CompiledQuery, Kysely } from 'kysely'
import type { CompiledStatements } from './compiled-statements.js'
import { logNodePosition } from './log-node-position.js'
import type { RegistryDatabase } from './schema.js'
import type { SqliteStatements } from './sqlite-statements.js'
import type { LogLeafFacts, LogStore, StoredLogLeaf } from './store.js'

export function createLogStore(
  db: Kysely<RegistryDatabase>,
  statements: CompiledStatements,
  sqlite: SqliteStatements | undefined,
  /** The SQLite writer's committed tree size (sqlite-publish-writer.ts), or undefined to read the stored size (`readLogTreeSize`). */
  committedTreeSize: () => number | undefined = () => undefined,
): LogStore {
  /** Rows of a compiled read: straight from node:sqlite on SQLite, through Kysely on PostgreSQL. */
  const readRows = async <Row>(query: CompiledQuery): Promise<Row[]> =>
    sqlite ? sqlite.all<Row>(query) : (await db.executeQuery<Row>(query)).rows
  /** Every stored node with position in [first, last], by position. */
  const nodesInRange = async (first: number, last: number): Promise<Map<number, Uint8Array>> =>
    byPosition(
      sqlite
        ? (sqlite.statement(NODE_RANGE_SQL).all(first, last) as unknown as NodeRow[])
        : await db
            .selectFrom('log_node')
            .select(['pos', 'hash'])
            .where('pos', '>=', first)
            .where('pos', '<=', last)
            .execute(),
    )
  /** The stored nodes at `positions` (one statement), by position; a position not stored is absent. */
  const nodesAt = async (positions: readonly number[]): Promise<Map<number, Uint8Array>> =>
    byPosition(
      sqlite
        ? (sqlite.statement(nodeBatchSql(positions.length)).all(...positions) as unknown as NodeRow[])
        : await db.selectFrom('log_node').select(['pos', 'hash']).where('pos', 'in', positions).execute(),
    )
  return {
    async readTreeSize() {
      // Every proof reads the size first: on SQLite the writer knows it once it has committed a leaf (a statement
      // here cost ≈ 5 % of an inclusion proof over HTTP); PostgreSQL instances share the table and always read.
      const known = committedTreeSize()
      if (known !== undefined) return known
      const [row] = await readRows<{ tree_size: number | string }>(statements.readLogTreeSize())
      return row === undefined ? 0 : Number(row.tree_size)
    },

    async findLeaf(leafIndex) {
      const [row] = await readRows<LeafFactsRow>(statements.findLogLeaf(leafIndex))
      return row === undefined ? undefined : toLeafFacts(row)
    },

    async readNodes(addresses) {
      if (addresses.length === 0) return []
      const positions = addresses.map(({ level, index }) => logNodePosition(level, index))
      const found = await nodesAt(positions)
      return addresses.map(({ level, index }, i) => {
        const hash = found.get(positions[i] as number)
        if (hash === undefined) throw missingNode(level, index)
        return new Uint8Array(hash)
      })
    },

    async listLeaves(start, end) {
      if (end <= start) return []
      // The visibility facts are the leaf row's copies (migration 0008); NULL ones (no context row) are left out,
      // as findLeaf leaves them out.
      const rows = (await db
        .selectFrom('log_leaf')
        .select(['leaf_index', 'ctx_id', 'leaf_json', 'visibility', 'agent_id', 'audience_json', 'tenant_id'])
        .where('leaf_index', '>=', start)
        .where('leaf_index', '<', end)
        .where('tenant_id', 'is not', null)
        .orderBy('leaf_index')
        .execute()) as LeafFactsRow[]
      // The leaf hashes of [start, end) lie within one run of ≈ 2·(end − start) positions.
      const hashes = await nodesInRange(logNodePosition(0, start), logNodePosition(0, end - 1))
      return rows.map((r): StoredLogLeaf => {
        const leaf = toLeafFacts(r)
        const hash = hashes.get(logNodePosition(0, leaf.leafIndex))
        if (hash === undefined) throw missingNode(0, leaf.leafIndex)
        return { ...leaf, leafHash: new Uint8Array(hash) }
      })
    },

    async listLeafTexts(start, end) {
      const rows = await db
        .selectFrom('log_leaf')
        .select(['leaf_index', 'leaf_json'])
        .where('leaf_index', '>=', start)
        .where('leaf_index', '<', end)
        .orderBy('leaf_index')
        .execute()
      return rows.map((r) => ({ leafIndex: Number(r.leaf_index), leafJson: r.leaf_json }))
    },

    async listNodes(level, start, end) {
      if (end <= start) return []
      const first = logNodePosition(level, start)
      const last = logNodePosition(level, end - 1)
      const wanted = Array.from({ length: end - start }, (_, i) => logNodePosition(level, start + i))
      let found: Map<number, Uint8Array>
      if (last - first + 1 <= RANGE_READ_FACTOR * wanted.length) {
        // Level 0: the leaves are every other position or so, one range scan reads them all.
        found = await nodesInRange(first, last)
      } else {
        found = new Map()
        for (let i = 0; i < wanted.length; i += LIST_CHUNK) {
          for (const [position, hash] of await nodesAt(wanted.slice(i, i + LIST_CHUNK))) found.set(position, hash)
        }
      }
      const nodes: Array<{ index: number; hash: Uint8Array }> = []
      for (const [i, position] of wanted.entries()) {
        const hash = found.get(position)
        if (hash !== undefined) nodes.push({ index: start + i, hash: new Uint8Array(hash) })
      }
      return nodes
    },

    async saveCheckpoint(treeSize, checkpointJson) {
      await db
        .insertInto('log_checkpoint')
        .values({ tree_size: treeSize, checkpoint_json: checkpointJson })
        .onConflict((oc) => oc.column('tree_size').doNothing())
        .execute()
    },

    async findLatestCheckpoint() {
      const row = await db
        .selectFrom('log_checkpoint')
        .select(['tree_size', 'checkpoint_json'])
        .orderBy('tree_size', 'desc')
        .limit(1)
        .executeTakeFirst()
      return row === undefined ? undefined : { treeSize: Number(row.tree_size), checkpointJson: row.checkpoint_json }
    },

    async findCheckpoint(treeSize) {
      const row = await db
        .selectFrom('log_checkpoint')
        .select('checkpoint_json')
        .where('tree_size', '=', treeSize)
        .executeTakeFirst()
      return row?.checkpoint_json
    },
  }
}

interface LeafFactsRow {
  leaf_index: number | string
  ctx_id: string
  leaf_json: string
  visibility: string
  agent_id: string
  audience_json: string
  tenant_id: string
}

function toLeafFacts(r: LeafFactsRow): LogLeafFacts {
  return {
    leafIndex: Number(r.leaf_index),
    ctxId: r.ctx_id,
    leafJson: r.leaf_json,
    visibility: r.visibility as LogLeafFacts['visibility'],
    agentId: r.agent_id,
    audience: JSON.parse(r.audience_json) as string[],
    tenantId: r.tenant_id,
  }
}

interface NodeRow {
  pos: number
  hash: Uint8Array
}

function byPosition(rows: ReadonlyArray<{ pos: number | string; hash: Uint8Array }>): Map<number, Uint8Array> {
  return new Map(rows.map((r) => [Number(r.pos), r.hash]))
}

const NODE_RANGE_SQL = 'select pos, hash from log_node where pos between ? and ?'

/**
 * `listNodes` scans a position range when it holds at most this many rows per node wanted (level 0: ≈ 2, the leaf
 * hashes and the parents between them), else probes keys: on node:sqlite a probe costs ≈ 1.6 µs and a scanned
 * row ≈ 1 µs (1,000,000 leaves, docs/performance/journal.md "WAL pages per publish (session 5)").
 */
const RANGE_READ_FACTOR = 3
/**
 * Keys per `IN` list of a probing `listNodes` (far below either dialect's parameter limit); on SQLite one
 * prepared text serves every full chunk.
 */
const LIST_CHUNK = 1000

/**
 * One SQLite statement reading `count` nodes by primary key: `pos IN (…)` is planned as a rowid search per
 * position, so a whole proof costs one statement step instead of one per node. Texts are cached per count by
 * SqliteStatements (a proof needs at most ~2·log2 n nodes, `listNodes` LIST_CHUNK: a small closed set).
 */
const nodeBatchTexts: string[] = []
function nodeBatchSql(count: number): string {
  let text = nodeBatchTexts[count]
  if (text === undefined) {
    text = `select pos, hash from log_node where pos in (${Array(count).fill('?').join(', ')})`
    nodeBatchTexts[count] = text
  }
  return text
}

function missingNode(level: number, index: number): Error {
  return new Error(`transparency log node (${level}, ${index}) is missing from storage`)
}
