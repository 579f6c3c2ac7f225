/**
 * The transparency log's integrity self-check (RFC-ACDP-0012 §5.3, §7.4). Two scopes:
 *
 * - `full` (the admin route and `acdp-registry log verify`): recomputes every leaf hash from the stored leaf
 *   texts (the JCS leaf encoding, hashed as stored), every stored perfect-subtree hash from those leaves, and the
 *   root at the size of the last signed checkpoint, and compares each with what is stored and signed. O(n).
 * - `since-checkpoint` (every start): the last signed checkpoint at size c is the anchor — its signature is by a
 *   key the database does not hold. The stored subtrees tiling `[0, c)` must fold to its signed root (O(log n)
 *   reads); every leaf and node from c on is recomputed exactly as in `full`; and `SAMPLED_LEAVES` random leaves
 *   below c are rehashed from their stored text and proven against the signed root with stored nodes. So what
 *   the last checkpoint signed is re-proven at its top, everything appended since is proven in full, and a
 *   rewrite below the anchor is caught when a sampled leaf's path crosses it (and by every consumer whose
 *   proof crosses it) — not exhaustively; that is the full scope's job. Without a stored checkpoint it is
 *   `full`. Work is O(n − c + log n · SAMPLED_LEAVES); the registry signs a checkpoint after a passing start,
 *   so the next start resumes from there.
 *
 * Streams the log in pages, so memory stays bounded whatever its size. A mismatch means stored history was
 * altered (or lost) after it was committed. The registry then refuses to serve the log rather than sign a
 * checkpoint over a rewritten tree.
 */
import {
  computeCheckpointHash,
  computeEmptyTreeHash,
  computeLeafHash,
  computeNodeHash,
  equalHashes,
  formatSha256,
  type LogCheckpoint,
  parseSha256,
  planInclusionProof,
  planTreeRoot,
  readProof,
  verifyInclusionProof,
  verifyReceiptSignature,
} from '@acdp/protocol'
import { randomInt } from 'node:crypto'
import type { LogStore } from '../store/store.js'

/** Leaves read per page. */
const PAGE = 4096
/** Leaves below the anchor checkpoint a `since-checkpoint` check rehashes and proves against its root. */
export const SAMPLED_LEAVES = 64
const encoder = new TextEncoder()

export type LogSelfCheckResult =
  { ok: true; treeSize: number; checkpointTreeSize: number | null } | { ok: false; treeSize: number; reason: string }

export interface LogSelfCheckOptions {
  logId: string
  /** Public keys (current and retired) that may have signed stored checkpoints, by key id. */
  checkpointKeys: ReadonlyMap<string, Uint8Array>
  /** `full` (default) recomputes everything; `since-checkpoint` anchors on the last signed checkpoint. */
  scope?: 'full' | 'since-checkpoint'
}

export async function runLogSelfCheck(log: LogStore, options: LogSelfCheckOptions): Promise<LogSelfCheckResult> {
  const treeSize = await log.readTreeSize()
  const fail = (reason: string): LogSelfCheckResult => ({ ok: false, treeSize, reason })

  const latest = await log.findLatestCheckpoint()
  let checkpoint: LogCheckpoint | undefined
  if (latest) {
    checkpoint = JSON.parse(latest.checkpointJson) as LogCheckpoint
    const problem = checkStoredCheckpoint(checkpoint, latest.treeSize, treeSize, options)
    if (problem) return fail(problem)
  }

  // Perfect subtrees of the prefix read so far, largest first: the right fold of this stack is the root.
  const frontier: Array<{ level: number; hash: Uint8Array }> = []
  let rootAtCheckpoint: Uint8Array | undefined = checkpoint?.tree_size === 0 ? EMPTY_ROOT : undefined
  let from = 0
  if (options.scope === 'since-checkpoint' && checkpoint !== undefined && checkpoint.tree_size > 0) {
    const anchored = await checkBelowCheckpoint(log, checkpoint)
    if (typeof anchored === 'string') return fail(anchored)
    frontier.push(...anchored)
    rootAtCheckpoint = parseSha256(checkpoint.root_hash)
    from = checkpoint.tree_size
  }
  for (let start = from; start < treeSize; start += PAGE) {
    const end = Math.min(start + PAGE, treeSize)
    const leaves = await log.listLeafTexts(start, end)
    if (leaves.length !== end - start)
      return fail(`leaves ${start}..${end - 1}: ${end - start - leaves.length} missing`)
    const computed = new Map<number, Array<{ index: number; hash: Uint8Array }>>()
    const remember = (level: number, index: number, hash: Uint8Array) => {
      let list = computed.get(level)
      if (!list) computed.set(level, (list = []))
      list.push({ index, hash })
    }
    for (const [offset, leaf] of leaves.entries()) {
      const index = start + offset
      if (leaf.leafIndex !== index) return fail(`leaf ${index} is missing`)
      // The stored text is the leaf encoding itself (JCS, written at publish): its hash must be node (0, i).
      let hash = computeLeafHash(encoder.encode(leaf.leafJson))
      remember(0, index, hash)
      let level = 0
      let nodeIndex = index
      while (frontier.length > 0 && (frontier.at(-1) as { level: number }).level === level) {
        const left = frontier.pop() as { hash: Uint8Array }
        hash = computeNodeHash(left.hash, hash)
        level += 1
        nodeIndex = (nodeIndex - 1) / 2
        remember(level, nodeIndex, hash)
      }
      frontier.push({ level, hash })
      if (checkpoint && index + 1 === checkpoint.tree_size) rootAtCheckpoint = foldFrontier(frontier)
    }
    for (const [level, nodes] of computed) {
      const first = (nodes[0] as { index: number }).index
      const stored = await log.listNodes(level, first, first + nodes.length)
      for (const [i, node] of nodes.entries()) {
        const row = stored[i]
        if (row === undefined || row.index !== node.index) return fail(`node (${level}, ${node.index}) is missing`)
        if (!equalHashes(row.hash, node.hash)) {
          return fail(
            level === 0
              ? `leaf ${node.index}: stored text does not hash to the stored leaf hash`
              : `node (${level}, ${node.index}) differs from the hash recomputed from the stored leaves`,
          )
        }
      }
    }
  }

  if (checkpoint) {
    if (rootAtCheckpoint === undefined || formatSha256(rootAtCheckpoint) !== checkpoint.root_hash) {
      return fail(
        `the root recomputed at tree size ${checkpoint.tree_size} differs from the last signed checkpoint's root_hash`,
      )
    }
  }
  return { ok: true, treeSize, checkpointTreeSize: checkpoint?.tree_size ?? null }
}

const EMPTY_ROOT = computeEmptyTreeHash()

/**
 * The `since-checkpoint` anchor: the stored subtrees tiling `[0, c)` fold to the checkpoint's signed root, and
 * `SAMPLED_LEAVES` random stored leaves below c hash to their stored node and prove against that root. Returns
 * the tiling (largest first, the frontier the suffix check starts from) or the reason it failed.
 */
async function checkBelowCheckpoint(
  log: LogStore,
  checkpoint: LogCheckpoint,
): Promise<Array<{ level: number; hash: Uint8Array }> | string> {
  const size = checkpoint.tree_size
  const root = parseSha256(checkpoint.root_hash)
  const tiling = planTreeRoot(size).addresses
  let hashes: Uint8Array[]
  try {
    hashes = await log.readNodes(tiling)
  } catch {
    return `a stored subtree below the last signed checkpoint (tree size ${size}) is missing`
  }
  const frontier = tiling.map(({ level }, i) => ({ level, hash: hashes[i] as Uint8Array }))
  if (!equalHashes(foldFrontier(frontier), root)) {
    return `the stored subtrees below tree size ${size} do not fold to the last signed checkpoint's root_hash`
  }
  const nodes = { readNodes: (addresses: readonly { level: number; index: number }[]) => log.readNodes(addresses) }
  // A small prefix is checked leaf by leaf; a larger one at random (unpredictable to whoever altered it).
  for (let sample = 0; sample < Math.min(SAMPLED_LEAVES, size); sample++) {
    const leafIndex = size <= SAMPLED_LEAVES ? sample : randomInt(size)
    const [leaf] = await log.listLeafTexts(leafIndex, leafIndex + 1)
    if (leaf === undefined || leaf.leafIndex !== leafIndex) return `leaf ${leafIndex} is missing`
    const leafHash = computeLeafHash(encoder.encode(leaf.leafJson))
    try {
      const [stored] = await log.readNodes([{ level: 0, index: leafIndex }])
      if (stored === undefined || !equalHashes(stored, leafHash)) {
        return `leaf ${leafIndex}: stored text does not hash to the stored leaf hash`
      }
      const inclusionPath = await readProof(nodes, planInclusionProof(leafIndex, size))
      verifyInclusionProof({ leafHash, leafIndex, treeSize: size, inclusionPath, rootHash: root })
    } catch {
      return `leaf ${leafIndex} does not prove against the last signed checkpoint (tree size ${size}) with the stored nodes`
    }
  }
  return frontier
}

function foldFrontier(frontier: ReadonlyArray<{ hash: Uint8Array }>): Uint8Array {
  let acc = (frontier.at(-1) as { hash: Uint8Array }).hash
  for (let i = frontier.length - 2; i >= 0; i--) acc = computeNodeHash((frontier[i] as { hash: Uint8Array }).hash, acc)
  return acc
}

function checkStoredCheckpoint(
  checkpoint: LogCheckpoint,
  storedSize: number,
  treeSize: number,
  options: LogSelfCheckOptions,
): string | undefined {
  if (checkpoint.log_id !== options.logId) {
    return `the last signed checkpoint belongs to ${checkpoint.log_id}, not ${options.logId} (log.instance changed?)`
  }
  if (checkpoint.tree_size !== storedSize) return 'the last signed checkpoint is stored under another tree size'
  if (checkpoint.tree_size > treeSize) {
    return `the last signed checkpoint covers ${checkpoint.tree_size} leaves but only ${treeSize} are stored (history lost)`
  }
  const key = options.checkpointKeys.get(checkpoint.signature?.key_id)
  if (key === undefined) return 'the last signed checkpoint is signed by a key this registry does not hold'
  try {
    verifyReceiptSignature(computeCheckpointHash(checkpoint), checkpoint.signature, {
      algorithm: 'ed25519',
      publicKey: key,
    })
  } catch {
    return 'the signature of the last signed checkpoint does not verify'
  }
  return undefined
}
