/**
 * Merkle math against an independent, literal transcription of RFC 6962 §2.1 (MTH, PATH, SUBPROOF) that
 * uses node:crypto directly: stored-node roots and proofs must equal it byte for byte, and the RFC 9162
 * verifiers must accept exactly the genuine proofs.
 */
import { createHash } from 'node:crypto'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { ProtocolError } from '../errors.js'
import { buildAppendedNodes, planAppend } from './append.js'
import { generateConsistencyProof, verifyConsistencyProof } from './consistency-proof.js'
import { generateInclusionProof, verifyInclusionProof } from './inclusion-proof.js'
import { MemoryMerkleTree } from './memory-tree.js'
import type { MerkleNodeReader } from './node-reader.js'
import { planConsistencyProof, planInclusionProof, planTreeRoot } from './proof-plan.js'
import { computeMerkleRoot, computeTreeRoot } from './root.js'
import { decomposeRange, isPowerOfTwo, largestPowerOfTwoBelow } from './subtree.js'
import { computeEmptyTreeHash, computeLeafHash, computeNodeHash } from './tree-hash.js'

// ---------- reference: RFC 6962 §2.1 written out literally, memoized on (start, end) ----------

const rawSha256 = (...parts: Uint8Array[]): Uint8Array => {
  const h = createHash('sha256')
  for (const part of parts) h.update(part)
  return new Uint8Array(h.digest())
}
const referenceNode = (l: Uint8Array, r: Uint8Array) => rawSha256(Uint8Array.of(1), l, r)
const splitPoint = (n: number) => {
  let k = 1
  while (k * 2 < n) k *= 2
  return k
}

class ReferenceTree {
  readonly #memo = new Map<string, Uint8Array>()
  constructor(readonly leaves: readonly Uint8Array[]) {}

  mth(start: number, end: number): Uint8Array {
    if (end === start) return rawSha256()
    if (end - start === 1) return this.leaves[start] as Uint8Array
    const key = `${start},${end}`
    const known = this.#memo.get(key)
    if (known) return known
    const k = splitPoint(end - start)
    const value = referenceNode(this.mth(start, start + k), this.mth(start + k, end))
    this.#memo.set(key, value)
    return value
  }

  path(m: number, start: number, end: number): Uint8Array[] {
    if (end - start <= 1) return []
    const k = splitPoint(end - start)
    return m < k
      ? [...this.path(m, start, start + k), this.mth(start + k, end)]
      : [...this.path(m - k, start + k, end), this.mth(start, start + k)]
  }

  subproof(m: number, start: number, end: number, isWhole: boolean): Uint8Array[] {
    if (m === end - start) return isWhole ? [] : [this.mth(start, end)]
    const k = splitPoint(end - start)
    return m <= k
      ? [...this.subproof(m, start, start + k, isWhole), this.mth(start + k, end)]
      : [...this.subproof(m - k, start + k, end, false), this.mth(start, start + k)]
  }
}

const leafFor = (i: number) => computeLeafHash(new TextEncoder().encode(`leaf-${i}`))

function buildTrees(n: number): { tree: MemoryMerkleTree; reference: ReferenceTree } {
  const leaves = Array.from({ length: n }, (_, i) => leafFor(i))
  const tree = new MemoryMerkleTree()
  for (const leaf of leaves) tree.appendLeafHash(leaf)
  return { tree, reference: new ReferenceTree(leaves) }
}

// Largest tree the property tests need; prefixes of it serve every smaller size.
const MAX_LEAVES = 2000
const shared = buildTrees(MAX_LEAVES)

const hex = (hashes: readonly Uint8Array[]) => hashes.map((h) => Buffer.from(h).toString('hex'))
const flipBit = (hash: Uint8Array, bit: number) => {
  const copy = hash.slice()
  copy[bit >> 3] = (copy[bit >> 3] as number) ^ (1 << (bit & 7))
  return copy
}
const reasonOf = (fn: () => unknown): string | undefined => {
  try {
    fn()
  } catch (error) {
    expect(error).toBeInstanceOf(ProtocolError)
    return ((error as ProtocolError).details as { reason: string }).reason
  }
  return undefined
}

// ---------- hashing ----------

describe('hashing (RFC-ACDP-0012 §5.1–§5.2)', () => {
  it('prefixes leaves with 0x00 and interior nodes with 0x01', () => {
    const bytes = new TextEncoder().encode('x')
    expect(computeLeafHash(bytes)).toEqual(rawSha256(Uint8Array.of(0), bytes))
    const a = leafFor(1)
    const b = leafFor(2)
    expect(computeNodeHash(a, b)).toEqual(rawSha256(Uint8Array.of(1), a, b))
  })

  it('hashes the empty tree to SHA-256 of the empty string', () => {
    expect(Buffer.from(computeEmptyTreeHash()).toString('hex')).toBe(
      'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    )
  })

  it('refuses node children that are not 32 bytes', () => {
    expect(() => computeNodeHash(new Uint8Array(31), leafFor(0))).toThrow(TypeError)
  })
})

describe('subtree arithmetic', () => {
  it.each([
    [2, 1],
    [3, 2],
    [4, 2],
    [5, 4],
    [8, 4],
    [9, 8],
    [257, 256],
    [2 ** 40 + 1, 2 ** 40],
  ])('the split point of %i is %i', (n, k) => {
    expect(largestPowerOfTwoBelow(n)).toBe(k)
  })

  it('decomposes an aligned range into its binary digits, largest first', () => {
    expect(decomposeRange(0, 13)).toEqual([
      { level: 3, index: 0 },
      { level: 2, index: 2 },
      { level: 0, index: 12 },
    ])
    expect(decomposeRange(8, 13)).toEqual([
      { level: 2, index: 2 },
      { level: 0, index: 12 },
    ])
  })

  it('recognizes powers of two', () => {
    expect([1, 2, 3, 4, 6, 8, 2 ** 50].map(isPowerOfTwo)).toEqual([true, true, false, true, false, true, true])
  })

  it('handles sizes beyond 32-bit arithmetic without bitwise overflow', () => {
    const n = 2 ** 40 + 5
    const plan = planInclusionProof(n - 1, n)
    // Siblings of the last leaf: the 4-leaf subtree just left of it, then the 2^40-leaf left half.
    expect(plan.addresses).toEqual([
      { level: 2, index: 2 ** 38 },
      { level: 40, index: 0 },
    ])
  })
})

// ---------- boundary table ----------

const BOUNDARY_SIZES = [0, 1, 2, 3, 4, 7, 8, 9, 255, 256, 257]

describe.each(BOUNDARY_SIZES.map((size) => ({ size })))('tree of $size leaves', ({ size }) => {
  const { tree, reference } = buildTrees(size)

  it('stored-node root equals the reference MTH and the in-memory recursive root', async () => {
    const expected = reference.mth(0, size)
    expect(tree.computeRoot()).toEqual(expected)
    expect(computeMerkleRoot(reference.leaves)).toEqual(expected)
    expect(await computeTreeRoot(tree, size)).toEqual(expected)
  })
})

describe.each(BOUNDARY_SIZES.filter((size) => size > 0).map((size) => ({ size })))(
  'proofs in a tree of $size leaves',
  ({ size }) => {
    const { tree, reference } = buildTrees(size)

    it('every inclusion proof equals PATH(m, D[n]) and verifies', () => {
      const root = reference.mth(0, size)
      for (let m = 0; m < size; m++) {
        const proof = tree.proveInclusion(m, size)
        expect(hex(proof)).toEqual(hex(reference.path(m, 0, size)))
        verifyInclusionProof({
          leafHash: leafFor(m),
          leafIndex: m,
          treeSize: size,
          inclusionPath: proof,
          rootHash: root,
        })
      }
    })

    it('every consistency proof equals PROOF(m, D[n]) and verifies', () => {
      const second = reference.mth(0, size)
      for (let m = 1; m <= size; m++) {
        const proof = tree.proveConsistency(m, size)
        expect(hex(proof)).toEqual(hex(reference.subproof(m, 0, size, true)))
        verifyConsistencyProof({
          firstTreeSize: m,
          secondTreeSize: size,
          firstRootHash: reference.mth(0, m),
          secondRootHash: second,
          consistencyPath: proof,
        })
      }
    })

    it('proofs read O(log n) stored nodes', () => {
      const bound = 2 * Math.ceil(Math.log2(size)) + 1
      for (const m of [0, Math.floor(size / 2), size - 1]) {
        expect(planInclusionProof(m, size).addresses.length).toBeLessThanOrEqual(bound)
        expect(planConsistencyProof(m + 1, size).addresses.length).toBeLessThanOrEqual(bound)
      }
      expect(planTreeRoot(size).addresses.length).toBeLessThanOrEqual(Math.ceil(Math.log2(size + 1)))
    })
  },
)

// ---------- properties ----------

const sizeAndIndex = fc
  .integer({ min: 1, max: MAX_LEAVES })
  .chain((n) => fc.record({ n: fc.constant(n), m: fc.integer({ min: 0, max: n - 1 }) }))
const sizePair = fc
  .integer({ min: 1, max: MAX_LEAVES })
  .chain((n) => fc.record({ n: fc.constant(n), m: fc.integer({ min: 1, max: n }) }))

describe('properties over random trees up to 2,000 leaves', () => {
  const { tree, reference } = shared

  it('the in-memory tree root equals the recursive reference root at every sampled size', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: MAX_LEAVES }), (n) => {
        expect(tree.computeRoot(n)).toEqual(reference.mth(0, n))
        expect(computeMerkleRoot(reference.leaves.slice(0, n))).toEqual(reference.mth(0, n))
      }),
    )
  })

  it('inclusion proofs equal the reference and verify', () => {
    fc.assert(
      fc.property(sizeAndIndex, ({ n, m }) => {
        const proof = tree.proveInclusion(m, n)
        expect(hex(proof)).toEqual(hex(reference.path(m, 0, n)))
        verifyInclusionProof({
          leafHash: leafFor(m),
          leafIndex: m,
          treeSize: n,
          inclusionPath: proof,
          rootHash: reference.mth(0, n),
        })
      }),
    )
  })

  it('an inclusion proof with any tampered node fails', () => {
    fc.assert(
      fc.property(
        sizeAndIndex.filter(({ n }) => n > 1),
        fc.nat(),
        fc.integer({ min: 0, max: 255 }),
        ({ n, m }, pick, bit) => {
          const proof = tree.proveInclusion(m, n)
          const at = pick % proof.length
          proof[at] = flipBit(proof[at] as Uint8Array, bit)
          const reason = reasonOf(() =>
            verifyInclusionProof({
              leafHash: leafFor(m),
              leafIndex: m,
              treeSize: n,
              inclusionPath: proof,
              rootHash: reference.mth(0, n),
            }),
          )
          expect(reason).toBe('root_mismatch')
        },
      ),
    )
  })

  it('an inclusion proof fails for a wrong leaf hash, a wrong index or a wrong tree size', () => {
    fc.assert(
      fc.property(
        sizeAndIndex,
        fc.nat(),
        fc.integer({ min: 1, max: MAX_LEAVES }),
        ({ n, m }, otherIndex, otherSize) => {
          const proof = tree.proveInclusion(m, n)
          const root = reference.mth(0, n)
          const base = { leafIndex: m, treeSize: n, inclusionPath: proof, rootHash: root }
          expect(reasonOf(() => verifyInclusionProof({ ...base, leafHash: leafFor(m + 1) }))).toBeDefined()
          const m2 = otherIndex % n
          if (m2 !== m)
            expect(reasonOf(() => verifyInclusionProof({ ...base, leafHash: leafFor(m), leafIndex: m2 }))).toBeDefined()
          // The tree size is bound through the root the checkpoint signs with it: the proof must not verify
          // against the root of any other size.
          if (otherSize !== n && otherSize > m) {
            expect(
              reasonOf(() =>
                verifyInclusionProof({
                  ...base,
                  leafHash: leafFor(m),
                  treeSize: otherSize,
                  rootHash: reference.mth(0, otherSize),
                }),
              ),
            ).toBeDefined()
          }
        },
      ),
    )
  })

  it('consistency proofs equal the reference and verify', () => {
    fc.assert(
      fc.property(sizePair, ({ n, m }) => {
        const proof = tree.proveConsistency(m, n)
        expect(hex(proof)).toEqual(hex(reference.subproof(m, 0, n, true)))
        verifyConsistencyProof({
          firstTreeSize: m,
          secondTreeSize: n,
          firstRootHash: reference.mth(0, m),
          secondRootHash: reference.mth(0, n),
          consistencyPath: proof,
        })
      }),
    )
  })

  it('a consistency proof with any tampered node fails', () => {
    fc.assert(
      fc.property(
        sizePair.filter(({ n, m }) => m < n),
        fc.nat(),
        fc.integer({ min: 0, max: 255 }),
        ({ n, m }, pick, bit) => {
          const proof = tree.proveConsistency(m, n)
          const at = pick % proof.length
          proof[at] = flipBit(proof[at] as Uint8Array, bit)
          const input = {
            firstTreeSize: m,
            secondTreeSize: n,
            firstRootHash: reference.mth(0, m),
            secondRootHash: reference.mth(0, n),
            consistencyPath: proof,
          }
          expect(reasonOf(() => verifyConsistencyProof(input))).toMatch(/root_mismatch$/)
        },
      ),
    )
  })

  it('a consistency proof fails for a wrong first size, a wrong second size or a rewritten root', () => {
    fc.assert(
      fc.property(
        sizePair,
        fc.integer({ min: 1, max: MAX_LEAVES }),
        fc.integer({ min: 0, max: 255 }),
        ({ n, m }, other, bit) => {
          const proof = tree.proveConsistency(m, n)
          const base = {
            firstTreeSize: m,
            secondTreeSize: n,
            firstRootHash: reference.mth(0, m),
            secondRootHash: reference.mth(0, n),
            consistencyPath: proof,
          }
          if (other !== m && other <= n) {
            expect(
              reasonOf(() =>
                verifyConsistencyProof({ ...base, firstTreeSize: other, firstRootHash: reference.mth(0, other) }),
              ),
            ).toBeDefined()
          }
          if (other !== n && other >= m) {
            expect(
              reasonOf(() =>
                verifyConsistencyProof({ ...base, secondTreeSize: other, secondRootHash: reference.mth(0, other) }),
              ),
            ).toBeDefined()
          }
          expect(
            reasonOf(() => verifyConsistencyProof({ ...base, firstRootHash: flipBit(base.firstRootHash, bit) })),
          ).toBeDefined()
          expect(
            reasonOf(() => verifyConsistencyProof({ ...base, secondRootHash: flipBit(base.secondRootHash, bit) })),
          ).toBeDefined()
        },
      ),
    )
  })
})

// ---------- storage seam ----------

describe('generation from a MerkleNodeReader', () => {
  // An asynchronous store (as PostgreSQL would be) that records how many batches it served.
  class CountingReader implements MerkleNodeReader {
    batches = 0
    constructor(readonly tree: MemoryMerkleTree) {}
    async readNodes(addresses: Parameters<MerkleNodeReader['readNodes']>[0]) {
      this.batches += 1
      return this.tree.readNodes(addresses)
    }
  }

  it('reads each proof in one batch and matches the synchronous tree', async () => {
    const reader = new CountingReader(shared.tree)
    expect(hex(await generateInclusionProof(reader, 700, 1500))).toEqual(hex(shared.tree.proveInclusion(700, 1500)))
    expect(hex(await generateConsistencyProof(reader, 333, 1999))).toEqual(hex(shared.tree.proveConsistency(333, 1999)))
    expect(await computeTreeRoot(reader, 1234)).toEqual(shared.reference.mth(0, 1234))
    expect(reader.batches).toBe(3)
  })

  it('serves proofs at historical sizes from nodes stored later', () => {
    const { tree, reference } = buildTrees(10)
    for (let i = 10; i < 40; i++) tree.appendLeafHash(leafFor(i))
    expect(hex(tree.proveInclusion(3, 10))).toEqual(hex(reference.path(3, 0, 10)))
  })

  it('refuses to read a node that is not complete yet', () => {
    const { tree } = buildTrees(5)
    expect(() => tree.readNodes([{ level: 1, index: 2 }])).toThrow(/not stored/)
    expect(() => tree.readNodes([{ level: 3, index: 0 }])).toThrow(/not stored/)
  })

  it('lists the appended nodes a store must write: amortized two per leaf', () => {
    let writes = 0
    const tree = new MemoryMerkleTree()
    for (let i = 0; i < 1024; i++) {
      const siblings = tree.readNodes(planAppend(i))
      const nodes = buildAppendedNodes(i, leafFor(i), siblings)
      writes += nodes.length
      tree.appendLeafHash(leafFor(i))
      expect(tree.readNodes(nodes)).toEqual(nodes.map((node) => node.hash))
    }
    expect(writes).toBe(2047)
  })
})

// ---------- attacker-controlled numbers ----------

describe('malformed arguments yield domain errors', () => {
  const { reference } = buildTrees(5)
  const root = reference.mth(0, 5)
  const proof = reference.path(1, 0, 5)
  const valid = { leafHash: leafFor(1), leafIndex: 1, treeSize: 5, inclusionPath: proof, rootHash: root }

  it.each([
    { name: 'negative index', patch: { leafIndex: -1 }, reason: 'leaf_index_out_of_range' },
    { name: 'index equal to size', patch: { leafIndex: 5 }, reason: 'leaf_index_out_of_range' },
    { name: 'fractional index', patch: { leafIndex: 1.5 }, reason: 'leaf_index_out_of_range' },
    { name: 'NaN index', patch: { leafIndex: Number.NaN }, reason: 'leaf_index_out_of_range' },
    { name: 'zero size', patch: { treeSize: 0 }, reason: 'tree_size_invalid' },
    { name: 'unsafe size', patch: { treeSize: 2 ** 60 }, reason: 'tree_size_invalid' },
    { name: 'short digest', patch: { rootHash: new Uint8Array(31) }, reason: 'malformed_hash' },
    { name: 'extra path element', patch: { inclusionPath: [...proof, root] }, reason: 'inclusion_path_too_long' },
    { name: 'missing path element', patch: { inclusionPath: proof.slice(0, -1) }, reason: 'inclusion_path_too_short' },
  ])('inclusion verification: $name → $reason', ({ patch, reason }) => {
    expect(reasonOf(() => verifyInclusionProof({ ...valid, ...patch }))).toBe(reason)
  })

  const consistency = {
    firstTreeSize: 3,
    secondTreeSize: 5,
    firstRootHash: reference.mth(0, 3),
    secondRootHash: root,
    consistencyPath: reference.subproof(3, 0, 5, true),
  }
  it.each([
    { name: 'first size zero', patch: { firstTreeSize: 0 }, reason: 'tree_size_invalid' },
    { name: 'shrinking tree', patch: { firstTreeSize: 6 }, reason: 'tree_size_invalid' },
    { name: 'negative size', patch: { secondTreeSize: -5 }, reason: 'tree_size_invalid' },
    { name: 'empty path', patch: { consistencyPath: [] }, reason: 'consistency_path_empty' },
    {
      name: 'equal sizes with a path',
      patch: { firstTreeSize: 5, firstRootHash: root },
      reason: 'consistency_path_not_empty',
    },
    { name: 'equal sizes, different roots', patch: { firstTreeSize: 5, consistencyPath: [] }, reason: 'root_mismatch' },
    {
      name: 'extra element',
      patch: { consistencyPath: [...consistency.consistencyPath, root] },
      reason: 'consistency_path_too_long',
    },
    {
      name: 'missing element',
      patch: { consistencyPath: consistency.consistencyPath.slice(0, -1) },
      reason: 'consistency_path_too_short',
    },
  ])('consistency verification: $name → $reason', ({ patch, reason }) => {
    expect(reasonOf(() => verifyConsistencyProof({ ...consistency, ...patch }))).toBe(reason)
  })

  it('accepts equal sizes with an empty path and equal roots', () => {
    verifyConsistencyProof({ ...consistency, firstTreeSize: 5, firstRootHash: root, consistencyPath: [] })
  })

  it.each([
    { name: 'index out of range', plan: () => planInclusionProof(5, 5), reason: 'leaf_index_out_of_range' },
    { name: 'empty tree inclusion', plan: () => planInclusionProof(0, 0), reason: 'tree_size_invalid' },
    { name: 'first size zero', plan: () => planConsistencyProof(0, 5), reason: 'tree_size_invalid' },
    { name: 'first beyond second', plan: () => planConsistencyProof(6, 5), reason: 'tree_size_invalid' },
    { name: 'negative root size', plan: () => planTreeRoot(-1), reason: 'tree_size_invalid' },
    { name: 'size beyond the tree', plan: () => buildTrees(5).tree.proveInclusion(0, 6), reason: 'tree_size_invalid' },
  ])('planning: $name → invalid_structure/$reason', ({ plan, reason }) => {
    expect(plan).toThrow(
      expect.objectContaining({ code: 'invalid_structure', details: expect.objectContaining({ reason }) }),
    )
  })
})
