/**
 * The log half of the publish transaction (RFC-ACDP-0012 §7.1): takes the next leaf index, then — once the
 * context row exists — writes the leaf and every perfect subtree the leaf completes (`buildAppendedNodes`).
 * One implementation per executor: synchronous on the SQLite group-commit connection, awaited on a PostgreSQL
 * transaction. Both run the same compiled statements in the same order.
 */
import { buildAppendedNodes, planAppend } from '@acdp/protocol'
import type { Kysely } from 'kysely'
import type { CompiledStatements } from './compiled-statements.js'
import type { RegistryDatabase } from './schema.js'
import type { SqliteStatements } from './sqlite-statements.js'
import type { NewLogLeaf } from './store.js'

/** Increments the tree size; returns the index of the leaf being appended. */
export function takeLeafIndexSync(sqlite: SqliteStatements, statements: CompiledStatements): number {
  const [row] = sqlite.all<{ tree_size: number | bigint }>(statements.incrementLogTreeSize())
  if (row === undefined) throw new Error('log_state row is missing (migration 0002 not applied?)')
  return Number(row.tree_size) - 1
}

/** Writes leaf `leafIndex` and the nodes it completes. */
export function appendLeafSync(
  sqlite: SqliteStatements,
  statements: CompiledStatements,
  leafIndex: number,
  ctxId: string,
  leaf: NewLogLeaf,
): number {
  sqlite.run(statements.insertLogLeaf({ leaf_index: leafIndex, ctx_id: ctxId, leaf_json: leaf.leafJson }))
  const siblings = planAppend(leafIndex).map(({ level, index }) => {
    const [row] = sqlite.all<{ hash: Uint8Array }>(statements.findLogNode(level, index))
    if (row === undefined) throw new Error(`log node (${level}, ${index}) is missing`)
    return row.hash
  })
  const nodes = buildAppendedNodes(leafIndex, leaf.leafHash, siblings)
  for (const node of nodes)
    sqlite.run(statements.insertLogNode({ level: node.level, idx: node.index, hash: node.hash }))
  return nodes.length
}

type Executor = Pick<Kysely<RegistryDatabase>, 'executeQuery'>

/** `takeLeafIndexSync` inside a Kysely transaction (PostgreSQL). */
export async function takeLeafIndex(tx: Executor, statements: CompiledStatements): Promise<number> {
  const { rows } = await tx.executeQuery<{ tree_size: number | string }>(statements.incrementLogTreeSize())
  const row = rows[0]
  if (row === undefined) throw new Error('log_state row is missing (migration 0002 not applied?)')
  return Number(row.tree_size) - 1
}

/** `appendLeafSync` inside a Kysely transaction (PostgreSQL). */
export async function appendLeaf(
  tx: Executor,
  statements: CompiledStatements,
  leafIndex: number,
  ctxId: string,
  leaf: NewLogLeaf,
): Promise<void> {
  await tx.executeQuery(statements.insertLogLeaf({ leaf_index: leafIndex, ctx_id: ctxId, leaf_json: leaf.leafJson }))
  const siblings: Uint8Array[] = []
  for (const { level, index } of planAppend(leafIndex)) {
    const { rows } = await tx.executeQuery<{ hash: Uint8Array }>(statements.findLogNode(level, index))
    const row = rows[0]
    if (row === undefined) throw new Error(`log node (${level}, ${index}) is missing`)
    siblings.push(new Uint8Array(row.hash))
  }
  for (const node of buildAppendedNodes(leafIndex, leaf.leafHash, siblings)) {
    await tx.executeQuery(statements.insertLogNode({ level: node.level, idx: node.index, hash: node.hash }))
  }
}
