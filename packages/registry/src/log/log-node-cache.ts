/**
 * Perfect-subtree hashes of the transparency log held in memory, densely: a complete subtree's hash never changes
 * (RFC-ACDP-0012 §5), so once read it can be served to every later proof without touching storage.
 *
 * Hashes live in chunks of CHUNK_NODES consecutive nodes of one level (one 32-byte slot each plus a presence
 * flag), so a cached node costs 33 bytes instead of the ~150 of a Map entry holding its own Uint8Array.
 *
 * Two regions share `maxBytes`. The upper levels (every level ≥ `residentLevel`, the lowest level from which all
 * of the tree's nodes fit in `residentShare` of the budget; see `fitTree`) are resident: never evicted, because
 * every proof touches one node of each level, so at 10M leaves a level-5 chunk is hit by one proof in ~1,200 and
 * CLOCK evicted such chunks under the churn of the lower levels. The lower levels, where a random proof's nodes
 * are almost never reused, share the rest by CLOCK (second chance): a hit only sets a flag, and eviction skips
 * (and clears) flagged chunks.
 */
const HASH_BYTES = 32
const CHUNK_NODES = 256
const CHUNK_BYTES = CHUNK_NODES * (HASH_BYTES + 1)
/** The part of the budget the resident upper levels may take; the rest keeps recently read low-level chunks. */
export const DEFAULT_RESIDENT_SHARE = 0.75
/** Levels are below 64 (chunkKey); a tree of n leaves has complete nodes up to level log2 n. */
const MAX_LEVEL = 63

interface Chunk {
  readonly hashes: Uint8Array
  readonly present: Uint8Array
  /** Hit since the eviction scan last passed it. */
  referenced: boolean
}

export class LogNodeCache {
  readonly #maxChunks: number
  readonly #residentShare: number
  /** Chunks of levels ≥ #residentLevel: kept until the tree outgrows them (fitTree) or clear(). */
  readonly #resident = new Map<number, Chunk>()
  /** Insertion order is the clock: eviction scans from the first chunk, re-queueing referenced ones. */
  readonly #clock = new Map<number, Chunk>()
  /** MAX_LEVEL + 1 (nothing resident) until fitTree is told the tree's size. */
  #residentLevel = MAX_LEVEL + 1
  #fittedSize = -1

  /** `residentShare` 0 keeps nothing resident: every chunk is under CLOCK (the earlier policy, kept for benchmarks). */
  constructor(maxBytes: number, residentShare = DEFAULT_RESIDENT_SHARE) {
    if (!(residentShare >= 0 && residentShare < 1)) throw new RangeError('residentShare must be in [0, 1)')
    this.#maxChunks = Math.max(1, Math.floor(maxBytes / CHUNK_BYTES))
    this.#residentShare = residentShare
  }

  /**
   * Sizes the resident region for a tree of `treeSize` leaves: the lowest level k such that every complete node
   * of levels ≥ k fits in `residentShare` of the budget. Chunks of levels that drop out (the tree grew) join the
   * clock region. Cheap when the size is unchanged, so callers pass the tree size of every proof.
   */
  fitTree(treeSize: number): void {
    if (treeSize === this.#fittedSize) return
    this.#fittedSize = treeSize
    const budget = Math.floor(this.#maxChunks * this.#residentShare)
    let level = MAX_LEVEL + 1
    let chunks = 0
    while (level > 0) {
      const nodes = Math.floor(treeSize / 2 ** (level - 1))
      const more = Math.ceil(nodes / CHUNK_NODES)
      if (chunks + more > budget) break
      chunks += more
      level--
    }
    if (level === this.#residentLevel) return
    // Growth raises the level (chunks below it join the clock); the first fit lowers it (clock chunks at or
    // above it become resident). Either way a chunk lives in the region its level belongs to, which get relies on.
    const lowered = level < this.#residentLevel
    this.#residentLevel = level
    const [from, to] = lowered ? [this.#clock, this.#resident] : [this.#resident, this.#clock]
    for (const [key, chunk] of from) {
      if (levelOf(key) >= level !== lowered) continue
      from.delete(key)
      to.set(key, chunk)
    }
  }

  /** The lowest level kept resident for the fitted tree size (above every level while no size is known). */
  get residentLevel(): number {
    return this.#residentLevel
  }

  /**
   * The hash of node (`level`, `index`) if cached, as a copy: an evicted chunk's memory is reused (set), so a
   * view could change under a proof that holds it across an await.
   */
  get(level: number, index: number): Uint8Array | undefined {
    const key = chunkKey(level, index)
    const chunk = level >= this.#residentLevel ? this.#resident.get(key) : this.#clock.get(key)
    const slot = index % CHUNK_NODES
    if (chunk === undefined || chunk.present[slot] === 0) return undefined
    chunk.referenced = true
    return chunk.hashes.slice(slot * HASH_BYTES, (slot + 1) * HASH_BYTES)
  }

  set(level: number, index: number, hash: Uint8Array): void {
    if (hash.length !== HASH_BYTES) throw new TypeError('log node hashes must be 32 bytes')
    const key = chunkKey(level, index)
    const region = level >= this.#residentLevel ? this.#resident : this.#clock
    let chunk = region.get(key)
    if (chunk === undefined) {
      // A full cache reuses the chunk it evicts: at 1M+ leaves under random proofs almost every low-level miss
      // claims a chunk, and a fresh 8 KB zeroed allocation per miss showed as ≈ 6 % of an inclusion proof's CPU.
      const evicted = this.#resident.size + this.#clock.size >= this.#maxChunks ? this.#evictOne() : undefined
      if (evicted !== undefined) {
        evicted.present.fill(0)
        evicted.referenced = false
        chunk = evicted
      } else {
        const memory = new ArrayBuffer(CHUNK_BYTES)
        chunk = {
          hashes: new Uint8Array(memory, 0, CHUNK_NODES * HASH_BYTES),
          present: new Uint8Array(memory, CHUNK_NODES * HASH_BYTES, CHUNK_NODES),
          referenced: false,
        }
      }
      region.set(key, chunk)
    }
    const slot = index % CHUNK_NODES
    chunk.hashes.set(hash, slot * HASH_BYTES)
    chunk.present[slot] = 1
  }

  /**
   * Drops the first clock chunk not hit since the last scan; terminates because every pass clears the flags. The
   * resident region is at most `residentShare` of the budget, so the clock is never empty when the cache is full
   * unless the budget is a single chunk; then the oldest resident chunk goes. Returns the chunk dropped, for reuse.
   */
  #evictOne(): Chunk | undefined {
    if (this.#clock.size === 0) {
      const oldest = this.#resident.entries().next()
      if (oldest.done === true) return undefined
      this.#resident.delete(oldest.value[0])
      return oldest.value[1]
    }
    for (const [key, chunk] of this.#clock) {
      this.#clock.delete(key)
      if (!chunk.referenced) return chunk
      chunk.referenced = false
      this.#clock.set(key, chunk)
    }
    return undefined
  }

  clear(): void {
    this.#resident.clear()
    this.#clock.clear()
  }

  /** Memory held by the cached chunks (whole chunks: a chunk costs its full size once any node of it is cached). */
  get bytes(): number {
    return (this.#resident.size + this.#clock.size) * CHUNK_BYTES
  }

  /** Memory held by the resident upper levels' chunks (part of `bytes`). */
  get residentBytes(): number {
    return this.#resident.size * CHUNK_BYTES
  }
}

/** Distinct for every chunk of a tree below 2^46 leaves (level < 64), and exact as a double. */
function chunkKey(level: number, index: number): number {
  return Math.floor(index / CHUNK_NODES) * 64 + level
}

function levelOf(key: number): number {
  return key % 64
}
