/**
 * The RFC-ACDP-0012 transparency log as served (§8): checkpoints, inclusion and consistency proofs, entries.
 * Appends happen inside the publish transaction (store); everything here reads committed state, so a
 * checkpoint always covers every publish acknowledged before it was requested.
 *
 * Proofs read only the O(log n) stored perfect-subtree hashes they need (`plan*` + `readProof`). Checkpoints
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
  readProof,
  type SigningKey,
  signCheckpoint,
  computeEmptyTreeHash,
} from '@acdp/protocol'
import type { RegistryDeps } from '../deps.js'
import { RegistryError } from '../errors.js'
import type { LogStore } from '../store/store.js'
import { runLogSelfCheck, type LogSelfCheckResult } from './log-self-check.js'
import type { Reader } from './retrieval.js'
import { canRetrieve } from './visibility.js'

/** Most entries one `/log/entries` page returns (RFC-ACDP-0012 §8.3 recommends a cap of at least 256). */
export const MAX_ENTRIES_PER_PAGE = 1000
/** The current checkpoint is re-signed at least this often even when the tree did not grow. */
const CHECKPOINT_REFRESH_MS = 60_000
/** Signed checkpoints of historical sizes kept in memory. */
const CHECKPOINT_CACHE_ENTRIES = 4096
/**
 * Subtree hashes of this level and above are kept in memory once read: every proof touches the upper levels,
 * they are few (2n / 2^level), and a complete perfect subtree never changes. Lower levels are read per proof.
 */
const NODE_CACHE_MIN_LEVEL = 6
const NODE_CACHE_ENTRIES = 65_536

export interface TransparencyLogOptions {
  logId: string
  key: SigningKey
  /** Public keys (current and retired) by key id, for verifying stored checkpoints. */
  checkpointKeys: ReadonlyMap<string, Uint8Array>
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
  readonly #nodes = new Map<string, Uint8Array>()
  #failure: string | undefined

  constructor(deps: Pick<RegistryDeps, 'store' | 'clock'>, options: TransparencyLogOptions) {
    this.#deps = deps
    this.#log = deps.store.log
    this.#options = options
    this.logId = options.logId
  }

  /** Why the log is not served (a failed self-check), or undefined while it is healthy. */
  get failure(): string | undefined {
    return this.#failure
  }

  /** Runs the self-check; on a mismatch the log stops being served until a later check passes. */
  async selfCheck(): Promise<LogSelfCheckResult> {
    const result = await runLogSelfCheck(this.#log, {
      logId: this.logId,
      checkpointKeys: this.#options.checkpointKeys,
    })
    this.#failure = result.ok ? undefined : result.reason
    if (!result.ok) {
      this.#checkpoints.clear()
      this.#nodes.clear()
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
    const context = await this.#deps.store.findContext(ctxId)
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
    const path = await readProof(this.#nodeReader(), planConsistencyProof(first, second))
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
      const echo = canRetrieve(leaf, reader.did) ? `,"leaf":${leaf.leafJson}` : ''
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
    const [path, leaf] = await Promise.all([
      readProof(this.#nodeReader(), planInclusionProof(leafIndex, treeSize)),
      this.#log.findLeaf(leafIndex),
    ])
    const { json } = await this.#checkpointAt(treeSize, treeSize === size)
    const echo = leaf !== undefined && canRetrieve(leaf, reader.did) ? `,"leaf":${leaf.leafJson}` : ''
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
    return (await readProof(this.#nodeReader(), planTreeRoot(size)))[0] as Uint8Array
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

  #nodeReader() {
    return { readNodes: (addresses: readonly { level: number; index: number }[]) => this.#readNodes(addresses) }
  }

  async #readNodes(addresses: readonly { level: number; index: number }[]): Promise<Uint8Array[]> {
    const out: Uint8Array[] = new Array(addresses.length)
    const missing: Array<{ level: number; index: number }> = []
    const positions: number[] = []
    addresses.forEach((address, i) => {
      const hit = address.level >= NODE_CACHE_MIN_LEVEL ? this.#nodes.get(nodeKey(address)) : undefined
      if (hit) out[i] = hit
      else {
        missing.push(address)
        positions.push(i)
      }
    })
    if (missing.length === 0) return out
    const read = await this.#log.readNodes(missing)
    missing.forEach((address, j) => {
      const hash = read[j] as Uint8Array
      out[positions[j] as number] = hash
      if (address.level >= NODE_CACHE_MIN_LEVEL) {
        if (this.#nodes.size >= NODE_CACHE_ENTRIES) this.#nodes.clear()
        this.#nodes.set(nodeKey(address), hash)
      }
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

function nodeKey(address: { level: number; index: number }): string {
  return `${address.level}:${address.index}`
}

function hashList(hashes: readonly Uint8Array[]): string {
  return `[${hashes.map((h) => `"${formatSha256(h)}"`).join(',')}]`
}

function schemaViolation(message: string): RegistryError {
  return new RegistryError('schema_violation', message)
}
