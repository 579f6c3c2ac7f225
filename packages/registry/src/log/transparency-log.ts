/**
 * The RFC-ACDP-0012 transparency log as served (§8): checkpoints, inclusion and consistency proofs, entries.
 * Appends happen inside the publish transaction (store); everything here reads committed state, so a
 * checkpoint always covers every publish acknowledged before it was requested.
 *
 * Proofs read only the O(log n) stored perfect-subtree hashes they need (`plan*`), in one store query, minus
 * those already in memory: upper subtrees and the folded right-edge ranges every proof at a size shares.
 * Checkpoints
 * are signed with the receipt key and kept per tree size (memory, bounded; storage, for the self-check): the
 * current one is re-signed when the tree grew or after `CHECKPOINT_REFRESH_MS`.
 */
import {
  buildCheckpoint,
  formatSha256,
  type LogCheckpoint,
  planConsistencyProof,
  planInclusionProof,
  planTreeRoot,
  type SigningKey,
  signCheckpoint,
  computeEmptyTreeHash,
  foldRangeHashes,
  type MerkleNodeAddress,
  type MerkleProofPlan,
} from '@acdp/protocol'
import type { RegistryDeps } from '../core/deps.js'
import { RegistryError } from '../core/errors.js'
import type { LogLeafFacts, LogStore } from '../store/store.js'
import { LogHashCache } from './log-hash-cache.js'
import { DEFAULT_RESIDENT_SHARE, LogNodeCache } from './log-node-cache.js'
import { runLogSelfCheck, type LogSelfCheckResult } from './log-self-check.js'
import type { Reader } from '../retrieval/retrieval.js'
import { canRetrieve } from '../retrieval/visibility.js'

/** Most entries one `/log/entries` page returns (RFC-ACDP-0012 §8.3 recommends a cap of at least 256). */
export const MAX_ENTRIES_PER_PAGE = 1000
/** The current checkpoint is re-signed at least this often even when the tree did not grow. */
const CHECKPOINT_REFRESH_MS = 60_000
/** Signed checkpoints of historical sizes kept in memory. */
const CHECKPOINT_CACHE_ENTRIES = 4096
/**
 * Memory for subtree hashes once read (log-node-cache.ts): every proof touches the upper levels, and a complete
 * perfect subtree never changes. 64 MiB holds about two million nodes: all of a 1,000,000-leaf tree; in bigger
 * trees the upper levels and the most recently used parts of the lower ones. At 1M leaves its resident three
 * quarters hold every level ≥ 1 (32 MiB held levels ≥ 2), so an inclusion proof reads at most its level-0
 * sibling from storage: 142–153 instead of 160–169 µs of registry CPU per proof over HTTP, consistency 96–100
 * instead of 115–152 µs (docs/performance/journal.md, session 5). Only a log that large fills it.
 */
const NODE_CACHE_BYTES = 64 * 2 ** 20
/**
 * Folded hashes of aligned ranges that are not one perfect subtree (the right edge of a tree, `[start, size)`),
 * by range: all proofs at one tree size share its ~log2 n edge ranges, and a range's hash never changes.
 */
const FOLD_CACHE_ENTRIES = 4096

/** Nodes per statement while warming the resident levels: short enough not to hold the event loop for long. */
const WARM_BATCH_NODES = 512

export interface TransparencyLogOptions {
  logId: string
  key: SigningKey
  /** Public keys (current and retired) by key id, for verifying stored checkpoints. */
  checkpointKeys: ReadonlyMap<string, Uint8Array>
  /** Share of the node cache kept for the resident upper levels (log-node-cache.ts); benchmarks compare 0. */
  nodeCacheResidentShare?: number
}

/** The JSON text pieces routes splice into responses (the leaf is served as stored, never re-serialized). */
export interface InclusionAnswer {
  json: string
}

export class TransparencyLog {
  readonly logId: string
  readonly #log: LogStore
  readonly #deps: Pick<RegistryDeps, 'store' | 'clock'>
  readonly #options: TransparencyLogOptions
  readonly #checkpoints = new Map<number, { checkpoint: LogCheckpoint; json: string; signedAtMs: number }>()
  readonly #nodes: LogNodeCache
  readonly #folds = new LogHashCache<string>(FOLD_CACHE_ENTRIES)
  #failure: string | undefined

  constructor(deps: Pick<RegistryDeps, 'store' | 'clock'>, options: TransparencyLogOptions) {
    this.#deps = deps
    this.#log = deps.store.log
    this.#options = options
    this.logId = options.logId
    this.#nodes = new LogNodeCache(NODE_CACHE_BYTES, options.nodeCacheResidentShare ?? DEFAULT_RESIDENT_SHARE)
  }

  /** Memory held by cached subtree hashes (at most NODE_CACHE_BYTES): for benchmarks and diagnostics. */
  get nodeCacheBytes(): number {
    return this.#nodes.bytes
  }

  /** Memory held by the node cache's resident upper levels (part of nodeCacheBytes). */
  get nodeCacheResidentBytes(): number {
    return this.#nodes.residentBytes
  }

  /**
   * Reads the upper levels the node cache keeps resident at the current tree size (log-node-cache.ts), top
   * down, WARM_BATCH_NODES per range statement, yielding to the event loop between statements so requests are served
   * meanwhile: started after the start-up self-check and never awaited by it, so readiness is not delayed.
   * Proofs served while it runs fill the same cache. Resolves with the number of nodes read; stops at `signal`.
   */
  async warmNodeCache(signal?: AbortSignal): Promise<number> {
    const size = await this.#log.readTreeSize()
    this.#nodes.fitTree(size)
    let read = 0
    for (let level = Math.floor(Math.log2(Math.max(1, size))); level >= this.#nodes.residentLevel; level--) {
      const count = Math.floor(size / 2 ** level)
      for (let start = 0; start < count; start += WARM_BATCH_NODES) {
        await new Promise((resolve) => setImmediate(resolve))
        if (signal?.aborted === true || this.#failure !== undefined) return read
        const nodes = await this.#log.listNodes(level, start, Math.min(count, start + WARM_BATCH_NODES))
        for (const { index, hash } of nodes) this.#nodes.set(level, index, hash)
        read += nodes.length
      }
    }
    return read
  }

  /** Why the log is not served (a failed self-check), or undefined while it is healthy. */
  get failure(): string | undefined {
    return this.#failure
  }

  /**
   * Runs the self-check (`full` unless told otherwise; see log-self-check.ts for what each scope proves); on a
   * mismatch the log stops being served until a later check passes.
   */
  async selfCheck(scope: 'full' | 'since-checkpoint' = 'full'): Promise<LogSelfCheckResult> {
    const result = await runLogSelfCheck(this.#log, {
      logId: this.logId,
      checkpointKeys: this.#options.checkpointKeys,
      scope,
    })
    this.#failure = result.ok ? undefined : result.reason
    if (!result.ok) {
      this.#checkpoints.clear()
      this.#nodes.clear()
      this.#folds.clear()
    }
    return result
  }

  /** `GET /log/checkpoint`: a checkpoint over the committed tree (every acknowledged publish). */
  async currentCheckpoint(): Promise<{ checkpoint: LogCheckpoint; json: string }> {
    this.#assertHealthy()
    const size = await this.#log.readTreeSize()
    return this.#checkpointAt(size, true)
  }

  /** `MTH(D[treeSize])` as `sha256:…`, or undefined when the committed tree is smaller than `treeSize`. */
  async rootHashAt(treeSize: number): Promise<string | undefined> {
    if (!Number.isSafeInteger(treeSize) || treeSize < 0 || treeSize > (await this.#log.readTreeSize())) return undefined
    return formatSha256(await this.#rootAt(treeSize))
  }

  /** `GET /log/proof?ctx_id=` — 404 for an unlogged context or one the reader may not retrieve. */
  async inclusionByCtxId(ctxId: string, reader: Reader, treeSize: number | undefined): Promise<InclusionAnswer> {
    this.#assertHealthy()
    // Inside the reader's tenant: a context of another tenant is as unlogged as a missing one.
    const context = await this.#deps.store.findContext(ctxId, reader.tenant)
    if (!context || context.leafIndex === null || !canRetrieve(context, reader.did)) {
      throw new RegistryError('not_found', 'No logged context with this ctx_id.')
    }
    return this.#inclusion(context.leafIndex, treeSize, reader)
  }

  /** `GET /log/proof?leaf_index=` — the leaf is echoed only to a reader who may retrieve its context. */
  inclusionByIndex(leafIndex: number, reader: Reader, treeSize: number | undefined): Promise<InclusionAnswer> {
    this.#assertHealthy()
    return this.#inclusion(leafIndex, treeSize, reader)
  }

  /** `GET /log/proof?first=&second=` with `0 < first ≤ second ≤ current size`. */
  async consistency(first: number, second: number): Promise<string> {
    this.#assertHealthy()
    const size = await this.#log.readTreeSize()
    if (first < 1 || first > second || second > size) {
      throw schemaViolation(`first and second must satisfy 0 < first <= second <= ${size}`)
    }
    this.#nodes.fitTree(size)
    const path = await this.#readProof(planConsistencyProof(first, second))
    const { json } = await this.#checkpointAt(second, second === size)
    return `{"log_id":${JSON.stringify(this.logId)},"first_tree_size":${first},"second_tree_size":${second},"consistency_path":${hashList(path)},"log_checkpoint":${json}}`
  }

  /** `GET /log/entries?start=&end=` (`start < end ≤ size`; at most MAX_ENTRIES_PER_PAGE returned). */
  async entries(start: number, end: number, reader: Reader): Promise<string> {
    this.#assertHealthy()
    const size = await this.#log.readTreeSize()
    if (start >= end || end > size) throw schemaViolation(`start and end must satisfy start < end <= ${size}`)
    const leaves = await this.#log.listLeaves(start, Math.min(end, start + MAX_ENTRIES_PER_PAGE))
    const entries = leaves.map((leaf) => {
      const echo = mayEchoLeaf(leaf, reader) ? `,"leaf":${leaf.leafJson}` : ''
      return `{"leaf_index":${leaf.leafIndex},"leaf_hash":"${formatSha256(leaf.leafHash)}"${echo}}`
    })
    return `{"log_id":${JSON.stringify(this.logId)},"start":${start},"entries":[${entries.join(',')}]}`
  }

  async #inclusion(leafIndex: number, requestedSize: number | undefined, reader: Reader): Promise<InclusionAnswer> {
    const size = await this.#log.readTreeSize()
    const treeSize = requestedSize ?? size
    if (treeSize > size || leafIndex >= treeSize) {
      throw schemaViolation(`leaf_index and tree_size must satisfy leaf_index < tree_size <= ${size}`)
    }
    this.#nodes.fitTree(size)
    const [path, leaf] = await Promise.all([
      this.#readProof(planInclusionProof(leafIndex, treeSize)),
      this.#log.findLeaf(leafIndex),
    ])
    const { json } = await this.#checkpointAt(treeSize, treeSize === size)
    const echo = leaf !== undefined && mayEchoLeaf(leaf, reader) ? `,"leaf":${leaf.leafJson}` : ''
    return {
      json: `{"log_id":${JSON.stringify(this.logId)},"leaf_index":${leafIndex},"tree_size":${treeSize},"inclusion_path":${hashList(path)},"log_checkpoint":${json}${echo}}`,
    }
  }

  /**
   * A signed checkpoint at `size`: the cached one, the stored one, or a fresh signature over the root computed
   * from stored nodes. `isCurrent` lets the head checkpoint be refreshed; historical ones never change.
   */
  async #checkpointAt(size: number, isCurrent: boolean): Promise<{ checkpoint: LogCheckpoint; json: string }> {
    const nowMs = this.#deps.clock().getTime()
    const cached = this.#checkpoints.get(size)
    if (cached && (!isCurrent || nowMs - cached.signedAtMs < CHECKPOINT_REFRESH_MS)) return cached
    if (!isCurrent) {
      const stored = await this.#log.findCheckpoint(size)
      if (stored !== undefined) return this.#remember(size, JSON.parse(stored) as LogCheckpoint, stored, nowMs)
    }
    const root = await this.#rootAt(size)
    const checkpoint = signCheckpoint(
      buildCheckpoint({ logId: this.logId, treeSize: size, rootHash: root, timestamp: new Date(nowMs) }),
      this.#options.key,
    )
    const json = JSON.stringify(checkpoint)
    await this.#log.saveCheckpoint(size, json)
    return this.#remember(size, checkpoint, json, nowMs)
  }

  async #rootAt(size: number): Promise<Uint8Array> {
    if (size === 0) return computeEmptyTreeHash()
    return (await this.#readProof(planTreeRoot(size)))[0] as Uint8Array
  }

  #remember(size: number, checkpoint: LogCheckpoint, json: string, nowMs: number) {
    if (this.#checkpoints.size >= CHECKPOINT_CACHE_ENTRIES && !this.#checkpoints.has(size)) {
      const oldest = this.#checkpoints.keys().next().value as number
      this.#checkpoints.delete(oldest)
    }
    const entry = { checkpoint, json, signedAtMs: nowMs }
    this.#checkpoints.set(size, entry)
    return entry
  }

  /**
   * The proof elements of `plan`: folded ranges from memory where cached, the rest folded from stored
   * subtree hashes read in one `#readNodes` call (RFC 6962 §2.1 via `foldRangeHashes`).
   */
  async #readProof(plan: MerkleProofPlan): Promise<Uint8Array[]> {
    const out: Uint8Array[] = new Array(plan.elements.length)
    const pending: number[] = []
    const addresses: MerkleNodeAddress[] = []
    plan.elements.forEach((element, i) => {
      const folded = element.nodes.length > 1 ? this.#folds.get(rangeCacheKey(element.range)) : undefined
      if (folded !== undefined) out[i] = folded
      else {
        pending.push(i)
        addresses.push(...element.nodes)
      }
    })
    if (addresses.length === 0) return out
    const hashes = await this.#readNodes(addresses)
    let at = 0
    for (const i of pending) {
      const element = plan.elements[i] as MerkleProofPlan['elements'][number]
      const parts = hashes.slice(at, at + element.nodes.length)
      at += element.nodes.length
      const hash = foldRangeHashes(parts)
      if (element.nodes.length > 1) this.#folds.set(rangeCacheKey(element.range), hash)
      out[i] = hash
    }
    return out
  }

  async #readNodes(addresses: readonly MerkleNodeAddress[]): Promise<Uint8Array[]> {
    const out: Uint8Array[] = new Array(addresses.length)
    const missing: MerkleNodeAddress[] = []
    const positions: number[] = []
    addresses.forEach((address, i) => {
      const hit = this.#nodes.get(address.level, address.index)
      if (hit) out[i] = hit
      else {
        missing.push(address)
        positions.push(i)
      }
    })
    if (missing.length === 0) return out
    const read = await this.#log.readNodes(missing)
    if (read.length !== missing.length)
      throw new TypeError(`expected ${missing.length} node hashes, got ${read.length}`)
    missing.forEach((address, j) => {
      const hash = read[j] as Uint8Array
      out[positions[j] as number] = hash
      this.#nodes.set(address.level, address.index, hash)
    })
    return out
  }

  #assertHealthy(): void {
    if (this.#failure !== undefined) {
      throw new RegistryError(
        'internal_error',
        `The transparency log failed its integrity self-check: ${this.#failure}`,
        {
          status: 503,
        },
      )
    }
  }
}

/**
 * The log is registry-wide (one tree, every tenant's leaves): leaf hashes are served to everyone, but a leaf's
 * contents (its ctx_id and receipt fields) only to a reader of the same tenant who may retrieve the context.
 */
function mayEchoLeaf(leaf: LogLeafFacts, reader: Reader): boolean {
  return leaf.tenantId === reader.tenant && canRetrieve(leaf, reader.did)
}

function rangeCacheKey(range: { start: number; end: number }): string {
  return `${range.start}:${range.end}`
}

/**
 * `["sha256:…",…]`: the hashes are hex-encoded in one pass over one buffer (a proof has up to ~64 of them; one
 * `formatSha256` each cost ≈ 5 % of an inclusion proof over HTTP in buffer views and encoder calls).
 */
function hashList(hashes: readonly Uint8Array[]): string {
  if (hashes.length === 0) return '[]'
  const all = Buffer.allocUnsafe(hashes.length * 32)
  hashes.forEach((hash, i) => {
    if (hash.length !== 32) throw new TypeError(`a SHA-256 digest is 32 bytes, got ${hash.length}`)
    all.set(hash, i * 32)
  })
  const hex = all.toString('hex')
  let out = '["sha256:' + hex.slice(0, 64)
  for (let i = 1; i < hashes.length; i++) out += '","sha256:' + hex.slice(i * 64, i * 64 + 64)
  return out + '"]'
}

function schemaViolation(message: string): RegistryError {
  return new RegistryError('schema_violation', message)
}
