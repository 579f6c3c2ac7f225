/**
 * An in-memory append-only Merkle tree that keeps every perfect-subtree hash, exactly the layout a registry
 * stores (`docs/protocol/log.md`). Used by tests, the benchmark, `acdp dev`-sized registries and auditors
 * replaying `GET /log/entries`.
 */
import { ProtocolError } from '../errors.js'
import type { MerkleNodeReader } from './node-reader.js'
import { assembleProof, planConsistencyProof, planInclusionProof, planTreeRoot } from './proof-plan.js'
import { assertTreeSize, type MerkleNodeAddress } from './subtree.js'
import { computeEmptyTreeHash, computeLeafHash, computeNodeHash, MERKLE_HASH_BYTES } from './tree-hash.js'

const INITIAL_LEVEL_CAPACITY = 64

/**
 * Append-only Merkle tree over SHA-256 (RFC-ACDP-0012 §5) holding every complete perfect subtree.
 *
 * Memory: 32 bytes per stored node, about 64 bytes per leaf. Appends cost amortized 2 node hashes; roots and
 * proofs at the current or any earlier size cost O(log n) node reads. Not safe for concurrent appends from
 * several async tasks interleaving with reads of a size they assume fixed — like the registry's log, it has
 * one writer.
 */
export class MemoryMerkleTree implements MerkleNodeReader {
  // levels[l] holds count(l) = floor(size / 2^l) hashes of 32 bytes, contiguous; written only by #store.
  readonly #levels: Uint8Array[] = []
  readonly #counts: number[] = []
  #size = 0

  /** Number of leaves appended so far. */
  get size(): number {
    return this.#size
  }

  /** Appends a leaf by its encoding (`encodeLogLeaf(leaf)`), hashing it per §5.1; returns its leaf index. */
  appendLeaf(leafBytes: Uint8Array): number {
    return this.appendLeafHash(computeLeafHash(leafBytes))
  }

  /** Appends an already computed 32-byte leaf hash; returns its leaf index. Throws `TypeError` on a bad length. */
  appendLeafHash(leafHash: Uint8Array): number {
    if (leafHash.length !== MERKLE_HASH_BYTES) throw new TypeError('leaf hash must be 32 bytes')
    const leafIndex = this.#size
    // The loop of `planAppend` + `buildAppendedNodes`, inlined: no per-append arrays on the hot path.
    let level = 0
    let index = leafIndex
    let hash = leafHash
    this.#store(level, index, hash)
    while (index % 2 === 1) {
      hash = computeNodeHash(this.#read({ level, index: index - 1 }), hash)
      level += 1
      index = (index - 1) / 2
      this.#store(level, index, hash)
    }
    this.#size += 1
    return leafIndex
  }

  /** `MerkleNodeReader`: copies of the requested complete perfect-subtree hashes. Throws `Error` for an absent node. */
  readNodes(addresses: readonly MerkleNodeAddress[]): Uint8Array[] {
    return addresses.map((address) => this.#read(address).slice())
  }

  /**
   * The root at `treeSize` (default: current size) — RFC-ACDP-0012 §5.2. The `compute…`/`prove…` methods throw
   * ProtocolError `invalid_structure` (`tree_size_invalid`, `leaf_index_out_of_range`) for sizes beyond the tree.
   */
  computeRoot(treeSize: number = this.#size): Uint8Array {
    this.#assertReached(treeSize)
    if (treeSize === 0) return computeEmptyTreeHash()
    const plan = planTreeRoot(treeSize)
    return assembleProof(plan, this.readNodes(plan.addresses))[0] as Uint8Array
  }

  /** The audit path for `leafIndex` at `treeSize` (default: current size), synchronously. */
  proveInclusion(leafIndex: number, treeSize: number = this.#size): Uint8Array[] {
    this.#assertReached(treeSize)
    const plan = planInclusionProof(leafIndex, treeSize)
    return assembleProof(plan, this.readNodes(plan.addresses))
  }

  /** The consistency proof from `first` to `second` (default: current size), synchronously. */
  proveConsistency(first: number, second: number = this.#size): Uint8Array[] {
    this.#assertReached(second)
    const plan = planConsistencyProof(first, second)
    return assembleProof(plan, this.readNodes(plan.addresses))
  }

  #assertReached(treeSize: number): void {
    assertTreeSize(treeSize, 'tree_size')
    if (treeSize > this.#size) {
      throw new ProtocolError('invalid_structure', `tree_size ${treeSize} exceeds the tree's ${this.#size} leaves`, {
        details: { reason: 'tree_size_invalid', tree_size: treeSize, current_tree_size: this.#size },
      })
    }
  }

  #read({ level, index }: MerkleNodeAddress): Uint8Array {
    const count = this.#counts[level] ?? 0
    if (!Number.isSafeInteger(index) || index < 0 || index >= count) {
      throw new Error(`Merkle node (${level}, ${index}) is not stored`)
    }
    const offset = index * MERKLE_HASH_BYTES
    return (this.#levels[level] as Uint8Array).subarray(offset, offset + MERKLE_HASH_BYTES)
  }

  #store(level: number, index: number, hash: Uint8Array): void {
    while (this.#levels.length <= level) {
      this.#levels.push(new Uint8Array(INITIAL_LEVEL_CAPACITY * MERKLE_HASH_BYTES))
      this.#counts.push(0)
    }
    let buffer = this.#levels[level] as Uint8Array
    const offset = index * MERKLE_HASH_BYTES
    if (offset + MERKLE_HASH_BYTES > buffer.length) {
      const grown = new Uint8Array(buffer.length * 2)
      grown.set(buffer)
      buffer = grown
      this.#levels[level] = buffer
    }
    buffer.set(hash, offset)
    this.#counts[level] = index + 1
  }
}
