/**
 * Reads of the transparency log (RFC-ACDP-0012 §8): tree size, perfect-subtree hashes, leaves and signed
 * checkpoints. Every node a proof needs is fetched with one query: on SQLite a prepared
 * `(level, idx) IN (VALUES …)` statement straight on node:sqlite, on PostgreSQL through Kysely.
 */
import type { CompiledQuery, Kysely } from 'kysely'
import type { CompiledStatements } from './compiled-statements.js'
import type { RegistryDatabase } from './schema.js'
import type { SqliteStatements } from './sqlite-statements.js'
import type { LogLeafFacts, LogStore, StoredLogLeaf } from './store.js'

export function createLogStore(
  db: Kysely<RegistryDatabase>,
  statements: CompiledStatements,
  sqlite: SqliteStatements | undefined,
  /** The SQLite writer's committed tree size (sqlite-publish-writer.ts), or undefined to read `log_state`. */
  committedTreeSize: () => number | undefined = () => undefined,
): LogStore {
  /** Rows of a compiled read: straight from node:sqlite on SQLite, through Kysely on PostgreSQL. */
  const readRows = async <Row>(query: CompiledQuery): Promise<Row[]> =>
    sqlite ? sqlite.all<Row>(query) : (await db.executeQuery<Row>(query)).rows
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
      if (sqlite) {
        const parameters = addresses.flatMap(({ level, index }) => [level, index])
        const rows = sqlite.statement(nodeBatchSql(addresses.length)).all(...parameters) as Array<{
          level: number
          idx: number
          hash: Uint8Array
        }>
        return inRequestOrder(addresses, rows)
      }
      const rows = await db
        .selectFrom('log_node')
        .select(['level', 'idx', 'hash'])
        .where((eb) =>
          eb.or(addresses.map(({ level, index }) => eb.and([eb('level', '=', level), eb('idx', '=', index)]))),
        )
        .execute()
      return inRequestOrder(addresses, rows)
    },

    async listLeaves(start, end) {
      if (end <= start) return []
      const rows = await db
        .selectFrom('log_leaf as l')
        .innerJoin('context as c', 'c.ctx_id', 'l.ctx_id')
        .innerJoin('log_node as n', (join) => join.on('n.level', '=', 0).onRef('n.idx', '=', 'l.leaf_index'))
        .select([
          'l.leaf_index',
          'l.ctx_id',
          'l.leaf_json',
          'n.hash',
          'c.visibility',
          'c.agent_id',
          'c.audience_json',
          'c.tenant_id',
        ])
        .where('l.leaf_index', '>=', start)
        .where('l.leaf_index', '<', end)
        .orderBy('l.leaf_index')
        .execute()
      return rows.map((r): StoredLogLeaf => ({
        leafIndex: Number(r.leaf_index),
        ctxId: r.ctx_id,
        leafJson: r.leaf_json,
        leafHash: new Uint8Array(r.hash),
        visibility: r.visibility as StoredLogLeaf['visibility'],
        agentId: r.agent_id,
        audience: JSON.parse(r.audience_json) as string[],
        tenantId: r.tenant_id,
      }))
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
      const rows = await db
        .selectFrom('log_node')
        .select(['idx', 'hash'])
        .where('level', '=', level)
        .where('idx', '>=', start)
        .where('idx', '<', end)
        .orderBy('idx')
        .execute()
      return rows.map((r) => ({ index: Number(r.idx), hash: new Uint8Array(r.hash) }))
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

/**
 * One SQLite statement reading `count` nodes by primary key: `(level, idx) IN (VALUES …)` is planned as a
 * primary-key search per pair, so a whole proof costs one statement step instead of one per node. Texts are
 * cached per count by SqliteStatements (a proof needs at most ~2·log2 n nodes: a small closed set).
 */
const nodeBatchTexts: string[] = []
function nodeBatchSql(count: number): string {
  let text = nodeBatchTexts[count]
  if (text === undefined) {
    text = `select level, idx, hash from log_node where (level, idx) in (values ${Array(count).fill('(?, ?)').join(', ')})`
    nodeBatchTexts[count] = text
  }
  return text
}

/** The hashes of `rows` in the order of `addresses` (duplicates answered each time); throws for a missing node. */
function inRequestOrder(
  addresses: readonly { level: number; index: number }[],
  rows: ReadonlyArray<{ level: number | string; idx: number | string; hash: Uint8Array }>,
): Uint8Array[] {
  const byAddress = new Map(rows.map((r) => [`${Number(r.level)}:${Number(r.idx)}`, new Uint8Array(r.hash)]))
  return addresses.map(({ level, index }) => {
    const hash = byAddress.get(`${level}:${index}`)
    if (hash === undefined) throw missingNode(level, index)
    return hash
  })
}

function missingNode(level: number, index: number): Error {
  return new Error(`transparency log node (${level}, ${index}) is missing from storage`)
}
