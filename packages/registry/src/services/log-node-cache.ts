/**
 * Perfect-subtree hashes of the transparency log held in memory, densely: a complete subtree's hash never changes
 * (RFC-ACDP-0012 §5), so once read it can be served to every later proof without touching storage.
 *
 * Hashes live in chunks of CHUNK_NODES consecutive nodes of one level (one 32-byte slot each plus a presence
 * flag), so a cached node costs 33 bytes instead of the ~150 of a Map entry holding its own Uint8Array. Once
 * `maxBytes` is reached chunks are evicted by CLOCK (second chance): a hit only sets a flag, and eviction skips
 * (and clears) flagged chunks, so the upper levels, which every proof touches, stay.
 */
const HASH_BYTES = 32
const CHUNK_NODES = 256
const CHUNK_BYTES = CHUNK_NODES * (HASH_BYTES + 1)

interface Chunk {
  readonly hashes: Uint8Array
  readonly present: Uint8Array
  /** Hit since the eviction scan last passed it. */
  referenced: boolean
}

export class LogNodeCache {
  readonly #maxChunks: number
  /** Insertion order is the clock: eviction scans from the first chunk, re-queueing referenced ones. */
  readonly #chunks = new Map<number, Chunk>()

  constructor(maxBytes: number) {
    this.#maxChunks = Math.max(1, Math.floor(maxBytes / CHUNK_BYTES))
  }

  /** The hash of node (`level`, `index`) if cached; a read-only view (callers copy or only read it). */
  get(level: number, index: number): Uint8Array | undefined {
    const key = chunkKey(level, index)
    const chunk = this.#chunks.get(key)
    const slot = index % CHUNK_NODES
    if (chunk === undefined || chunk.present[slot] === 0) return undefined
    chunk.referenced = true
    return chunk.hashes.subarray(slot * HASH_BYTES, (slot + 1) * HASH_BYTES)
  }

  set(level: number, index: number, hash: Uint8Array): void {
    if (hash.length !== HASH_BYTES) throw new TypeError('log node hashes must be 32 bytes')
    const key = chunkKey(level, index)
    let chunk = this.#chunks.get(key)
    if (chunk === undefined) {
      if (this.#chunks.size >= this.#maxChunks) this.#evictOne()
      chunk = {
        hashes: new Uint8Array(CHUNK_NODES * HASH_BYTES),
        present: new Uint8Array(CHUNK_NODES),
        referenced: false,
      }
      this.#chunks.set(key, chunk)
    }
    const slot = index % CHUNK_NODES
    chunk.hashes.set(hash, slot * HASH_BYTES)
    chunk.present[slot] = 1
  }

  /** Drops the first chunk not hit since the last scan; terminates because every pass clears the flags. */
  #evictOne(): void {
    for (const [key, chunk] of this.#chunks) {
      this.#chunks.delete(key)
      if (!chunk.referenced) return
      chunk.referenced = false
      this.#chunks.set(key, chunk)
    }
  }

  clear(): void {
    this.#chunks.clear()
  }

  /** Memory held by the cached chunks (whole chunks: a chunk costs its full size once any node of it is cached). */
  get bytes(): number {
    return this.#chunks.size * CHUNK_BYTES
  }
}

/** Distinct for every chunk of a tree below 2^46 leaves (level < 64), and exact as a double. */
function chunkKey(level: number, index: number): number {
  return Math.floor(index / CHUNK_NODES) * 64 + level
}
