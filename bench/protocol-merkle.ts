/**
 * Transparency-log Merkle benchmark (RFC-ACDP-0012): builds a 1,000,000-leaf store of perfect-subtree
 * hashes in memory — the layout a registry persists — then measures proof generation from stored node
 * hashes and proof verification.
 *
 * Run alone: `npm run build && npx node bench/protocol-merkle.ts` (Node 24 type stripping, against
 * packages/protocol/dist). `bench/protocol.ts` also calls `benchMerkle()` after its crypto cases.
 */
import { pathToFileURL } from 'node:url'
import {
  computeLeafHash,
  generateConsistencyProof,
  generateInclusionProof,
  MemoryMerkleTree,
  planInclusionProof,
  verifyConsistencyProof,
  verifyInclusionProof,
} from '@acdp/protocol'

const LEAVES = Number(process.env['BENCH_MERKLE_LEAVES'] ?? 1_000_000)
const MEASURE_MS = Number(process.env['BENCH_MS'] ?? 1500)

/** Runs `fn` (sync or async) until `ms` elapse after a short warm-up; returns operations per second. */
async function measure(fn: (i: number) => unknown, ms = MEASURE_MS): Promise<number> {
  const warmUntil = performance.now() + Math.min(200, ms / 5)
  let i = 0
  while (performance.now() < warmUntil) await fn(i++)
  let ops = 0
  const start = performance.now()
  while (performance.now() - start < ms) {
    for (let k = 0; k < 64; k++) await fn(i++)
    ops += 64
  }
  return (ops * 1000) / (performance.now() - start)
}

// Deterministic pseudo-random leaf indexes (xorshift32) so runs are comparable.
function indexes(count: number, bound: number): number[] {
  let x = 0x9e3779b9
  return Array.from({ length: count }, () => {
    x ^= x << 13
    x ^= x >>> 17
    x ^= x << 5
    return (x >>> 0) % bound
  })
}

const format = (n: number) => Math.round(n).toLocaleString('en-US')
const line = (name: string, value: string) => console.log(`${name.padEnd(62)} ${value.padStart(14)}`)

/** Builds the store and prints throughput of proof generation and verification. */
export async function benchMerkle(): Promise<void> {
  console.log(`\nMerkle log bench: ${format(LEAVES)} leaves, ${MEASURE_MS} ms per case`)
  const tree = new MemoryMerkleTree()
  const leafInput = new Uint8Array(8)
  const view = new DataView(leafInput.buffer)
  const buildStart = performance.now()
  for (let i = 0; i < LEAVES; i++) {
    view.setUint32(4, i)
    tree.appendLeafHash(computeLeafHash(leafInput))
  }
  const buildMs = performance.now() - buildStart
  line('build: append leaf hashes (incl. leaf hashing)', `${format((LEAVES * 1000) / buildMs)} leaves/s`)
  line('build: wall time', `${(buildMs / 1000).toFixed(2)} s`)

  const n = tree.size
  const root = tree.computeRoot()
  const sample = indexes(4096, n)
  const pick = (i: number) => sample[i % sample.length] as number
  const reads = sample.slice(0, 256).reduce((sum, m) => sum + planInclusionProof(m, n).addresses.length, 0) / 256
  line('inclusion proof: stored nodes read per proof (mean)', reads.toFixed(1))

  line(
    'inclusion proof: plan only (which nodes)',
    `${format(await measure((i) => planInclusionProof(pick(i), n)))} ops/s`,
  )
  line(
    'inclusion proof: generate, sync (plan + read + assemble)',
    `${format(await measure((i) => tree.proveInclusion(pick(i), n)))} ops/s`,
  )
  line(
    'inclusion proof: generate via async MerkleNodeReader',
    `${format(await measure((i) => generateInclusionProof(tree, pick(i), n)))} ops/s`,
  )
  const proofs = sample.map((m) => ({
    m,
    path: tree.proveInclusion(m, n),
    leaf: tree.readNodes([{ level: 0, index: m }])[0] as Uint8Array,
  }))
  line(
    'inclusion proof: verify (RFC 9162 §2.1.3.2)',
    `${format(
      await measure((i) => {
        const p = proofs[i % proofs.length] as (typeof proofs)[number]
        verifyInclusionProof({ leafHash: p.leaf, leafIndex: p.m, treeSize: n, inclusionPath: p.path, rootHash: root })
      }),
    )} ops/s`,
  )

  const firsts = sample.map((m) => Math.max(1, m))
  line(
    'consistency proof: generate via async MerkleNodeReader',
    `${format(await measure((i) => generateConsistencyProof(tree, firsts[i % firsts.length] as number, n)))} ops/s`,
  )
  const consistency = firsts
    .slice(0, 256)
    .map((m) => ({ m, root: tree.computeRoot(m), path: tree.proveConsistency(m, n) }))
  line(
    'consistency proof: verify (RFC 9162 §2.1.4.2)',
    `${format(
      await measure((i) => {
        const c = consistency[i % consistency.length] as (typeof consistency)[number]
        verifyConsistencyProof({
          firstTreeSize: c.m,
          secondTreeSize: n,
          firstRootHash: c.root,
          secondRootHash: root,
          consistencyPath: c.path,
        })
      }),
    )} ops/s`,
  )
  line(
    'root at a historical size from stored nodes',
    `${format(await measure((i) => tree.computeRoot(1 + pick(i))))} ops/s`,
  )
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) await benchMerkle()
