/**
 * The log half of the publish transaction (RFC-ACDP-0012 §7.1): takes the next leaf index, then — once the
 * context row exists — writes the leaf and every perfect subtree the leaf completes (`buildAppendedNodes`).
 * On PostgreSQL the index comes from the `log_state` row (its lock serializes concurrent appenders) and the
 * siblings are read back; the SQLite writer is the only appender on its connection, so it keeps the right edge
 * in memory (`SqliteLogFrontier`) and the size is the number of leaves. Nodes are stored at their post-order
 * positions (log-node-position.ts), so the nodes one append writes are adjacent rows.
 */
import { buildAppendedNodes, planAppend, planTreeRoot, type StoredMerkleNode } from '@acdp/protocol'
import type { Kysely } from 'kysely'
import type { CompiledStatements } from './compiled-statements.js'
import type { RegistryDatabase } from './schema.js'
import type { SqliteStatements } from './sqlite-statements.js'
import { toLogLeafRow } from './rows.js'
import type { NewContext, NewLogLeaf } from './store.js'

/**
 * The log's right edge as the SQLite group-commit writer keeps it between publishes: the committed tree size
 * and the hashes of the perfect subtrees that tile `[0, size)` (the "frontier": exactly the left siblings the
 * next appends need). Loaded once from storage, then advanced in memory, so a logged publish reads nothing back
 * and writes no tree size: on SQLite the size is the leaves' count (migration 0007). The writer discards it
 * whenever a transaction fails.
 */
export class SqliteLogFrontier {
  /** Leaves appended, committed or inside the open transaction. */
  size: number
  /** Perfect subtrees tiling `[0, size)`, left to right (largest first). */
  #nodes: StoredMerkleNode[]

  private constructor(size: number, nodes: StoredMerkleNode[]) {
    this.size = size
    this.#nodes = nodes
  }

  /** Reads the tree size and its frontier nodes (inside the writer's open transaction). */
  static load(sqlite: SqliteStatements, statements: CompiledStatements): SqliteLogFrontier {
    const [row] = sqlite.all<{ tree_size: number | bigint }>(statements.readLogTreeSize())
    const size = Number(row?.tree_size ?? 0)
    const nodes = planTreeRoot(size).addresses.map(({ level, index }) => ({
      level,
      index,
      hash: readNode(sqlite, statements, level, index),
    }))
    return new SqliteLogFrontier(size, nodes)
  }

  /**
   * Writes leaf number `size` and every perfect subtree it completes; returns the new frontier, which the
   * caller installs with {@link advance} once the publish's savepoint is released.
   */
  append(
    sqlite: SqliteStatements,
    statements: CompiledStatements,
    context: NewContext,
    leaf: NewLogLeaf,
  ): StoredMerkleNode[] {
    const leafIndex = this.size
    sqlite.run(statements.insertLogLeaf(toLogLeafRow(context, leafIndex, leaf.leafJson)))
    // planAppend lists the left siblings bottom-up: the frontier's smallest subtrees, right to left.
    const siblings = planAppend(leafIndex)
    const kept = this.#nodes.length - siblings.length
    const hashes = siblings.map((address, i) => {
      const node = this.#nodes[this.#nodes.length - 1 - i]
      if (node === undefined || node.level !== address.level || node.index !== address.index) {
        throw new Error(`log frontier does not hold node (${address.level}, ${address.index})`)
      }
      return node.hash
    })
    const appended = buildAppendedNodes(leafIndex, leaf.leafHash, hashes)
    for (const node of appended) sqlite.run(statements.insertLogNode(node.level, node.index, node.hash))
    return [...this.#nodes.slice(0, kept), appended[appended.length - 1] as StoredMerkleNode]
  }

  /** Installs the frontier `append` returned: the leaf is part of the transaction now. */
  advance(frontier: StoredMerkleNode[]): void {
    this.#nodes = frontier
    this.size += 1
  }
}

function readNode(sqlite: SqliteStatements, statements: CompiledStatements, level: number, index: number): Uint8Array {
  const [row] = sqlite.all<{ hash: Uint8Array }>(statements.findLogNode(level, index))
  if (row === undefined) throw new Error(`log node (${level}, ${index}) is missing`)
  return row.hash
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
  context: NewContext,
  leaf: NewLogLeaf,
): Promise<void> {
  await tx.executeQuery(statements.insertLogLeaf(toLogLeafRow(context, leafIndex, leaf.leafJson)))
  const siblings: Uint8Array[] = []
  for (const { level, index } of planAppend(leafIndex)) {
    const { rows } = await tx.executeQuery<{ hash: Uint8Array }>(statements.findLogNode(level, index))
    const row = rows[0]
    if (row === undefined) throw new Error(`log node (${level}, ${index}) is missing`)
    siblings.push(new Uint8Array(row.hash))
  }
  for (const node of buildAppendedNodes(leafIndex, leaf.leafHash, siblings)) {
    await tx.executeQuery(statements.insertLogNode(node.level, node.index, node.hash))
  }
}
