/**
 * The transparency log's right edge held in memory: the perfect subtrees that tile `[0, size)`, largest first
 * (exactly the left siblings the next appends need, RFC-ACDP-0012 §7.1). Appending a leaf here computes the
 * nodes it completes without reading any back, so a batch of appends needs the stored edge once, at its start.
 */
import { buildAppendedNodes, planAppend, planTreeRoot, type StoredMerkleNode } from '@acdp/protocol'

export class LogFrontier {
  private constructor(
    /** Leaves the edge covers. */
    readonly size: number,
    readonly nodes: readonly StoredMerkleNode[],
  ) {}

  /** The node addresses (level, index) a tree of `size` leaves is tiled by: what {@link fromNodes} needs. */
  static addresses(size: number): ReadonlyArray<{ level: number; index: number }> {
    return planTreeRoot(size).addresses
  }

  /** The edge of a tree of `size` leaves from its tiling nodes, in {@link addresses} order. */
  static fromNodes(size: number, hashes: readonly Uint8Array[]): LogFrontier {
    const addresses = LogFrontier.addresses(size)
    if (hashes.length !== addresses.length) {
      throw new Error(`a log of ${size} leaves is tiled by ${addresses.length} nodes, got ${hashes.length}`)
    }
    return new LogFrontier(
      size,
      addresses.map(({ level, index }, i) => ({ level, index, hash: hashes[i] as Uint8Array })),
    )
  }

  /** Appends leaf number `size`: the nodes to store (the leaf's and every subtree it completes) and the new edge. */
  append(leafHash: Uint8Array): { appended: StoredMerkleNode[]; next: LogFrontier } {
    const leafIndex = this.size
    // planAppend lists the left siblings bottom-up: the edge's smallest subtrees, right to left.
    const siblings = planAppend(leafIndex)
    const kept = this.nodes.length - siblings.length
    const hashes = siblings.map((address, i) => {
      const node = this.nodes[this.nodes.length - 1 - i]
      if (node === undefined || node.level !== address.level || node.index !== address.index) {
        throw new Error(`log frontier does not hold node (${address.level}, ${address.index})`)
      }
      return node.hash
    })
    const appended = buildAppendedNodes(leafIndex, leafHash, hashes)
    const top = appended[appended.length - 1] as StoredMerkleNode
    return { appended, next: new LogFrontier(leafIndex + 1, [...this.nodes.slice(0, kept), top]) }
  }
}
