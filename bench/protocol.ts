/**
 * @acdp/protocol micro-benchmarks. Run: `npm run bench:protocol` (builds the protocol package, then
 * runs this file with Node 24 type stripping against packages/protocol/dist).
 *
 * Targets (docs/protocol/crypto.md): JCS + content_hash of a ~2 KB body ≥ 30,000 ops/s; strict
 * Ed25519 verify ≥ 80% of a raw node:crypto verify with a prepared KeyObject.
 *
 * Layout: `cryptoCases` (this file's owner) and `merkleCases` (the transparency-log engineer
 * appends there). Each case is a name, an optional target and a function run in a timed loop.
 */
import { createPublicKey, verify } from 'node:crypto'
import {
  canonicalize,
  computeContentHash,
  ed25519PublicKeyFromSeed,
  p256PublicKeyFromPrivate,
  parseJsonStrict,
  signContentHash,
  signEcdsaP256,
  signEd25519,
  verifyContentSignature,
  verifyEcdsaP256,
  verifyEd25519,
} from '@acdp/protocol'

export type BenchCase = {
  name: string
  /** Minimum ops/s this case must reach, when it has a target. */
  targetOpsPerSecond?: number
  run: () => unknown
}

export type BenchResult = { name: string; opsPerSecond: number; targetOpsPerSecond?: number }

const MEASURE_MS = Number(process.env['BENCH_MS'] ?? 1500)

/** Runs `fn` in batches until `ms` elapse (after a warm-up) and returns operations per second. */
export function measure(fn: () => unknown, ms = MEASURE_MS): number {
  let sink: unknown
  const warmUntil = performance.now() + Math.min(300, ms / 4)
  while (performance.now() < warmUntil) sink = fn()
  let ops = 0
  let batch = 16
  const start = performance.now()
  let elapsed = 0
  while (elapsed < ms) {
    for (let i = 0; i < batch; i++) sink = fn()
    ops += batch
    elapsed = performance.now() - start
    if (elapsed < ms / 20) batch *= 2
  }
  if (sink === Symbol.for('never')) console.log('')
  return (ops * 1000) / elapsed
}

// ---------------------------------------------------------------------------------------------
// Crypto core cases (jcs/, hash/, signature/)
// ---------------------------------------------------------------------------------------------

/** A ~2 KB publish body with the usual shape: metadata, data_refs, tags, registry-assigned fields. */
function sampleBody(): Record<string, unknown> {
  return {
    version: 3,
    supersedes: 'acdp://registry.example.com/6f1d4f10-7b2a-4c3e-8d5b-2a6f81c4e9b7',
    agent_id: 'did:web:agents.example.com:pricing-analyst',
    contributors: [
      'did:web:agents.example.com:data-collector',
      'did:key:z6MkghLt1e8m1fmANsdJJco3aCLV8Xnigr5UWwC3u5iZFPd3',
    ],
    title: 'Weekly competitor price index — EU retail électronique',
    summary: 'Median and inter-quartile price movements for 1,240 SKUs across 18 retailers, with outlier notes.',
    type: 'analysis',
    domain: 'retail.pricing',
    tags: ['pricing', 'eu', 'weekly', 'electronics', 'index'],
    visibility: 'public',
    expires_at: '2026-09-30T00:00:00.000Z',
    data_period: { start: '2026-06-01T00:00:00.000Z', end: '2026-06-07T23:59:59.999Z' },
    derived_from: [
      'acdp://registry.example.com/0a9c2a51-3b9e-4d0f-9a51-7e2d1c0b9f11',
      'acdp://registry.example.com/5d3b7e1a-2f4c-4a8e-b1d2-9c8e7f6a5b4c',
    ],
    metadata: {
      methodology: 'trimmed-median',
      sample_size: 1240,
      confidence: 0.95,
      retailers: 18,
      currency: 'EUR',
      notes: { outliers_removed: 37, stale_listings: 12, source_quality: 'high' },
    },
    data_refs: [
      {
        type: 'primary_result',
        location: 'https://data.example.com/indices/2026-w23/summary.json',
        format: 'json',
        content_hash: 'sha256:5f8d88d6758cfd43be875d49edc9eaa494de8ec645bf7de6c592b15bbb1e2e3c',
        size_bytes: 48213,
      },
      {
        type: 'raw_data',
        location: 'https://data.example.com/indices/2026-w23/raw.parquet',
        format: 'parquet',
        content_hash: 'sha256:1f92c3fbb396e08e6697ec0de74c6f9951b51e5ba2cae510cd30cac9932ce8f8',
        size_bytes: 7340032,
      },
      {
        type: 'supporting_evidence',
        embedded: {
          encoding: 'json',
          content: { median_change: -0.021, iqr: [0.013, 0.047], top_movers: ['sku-1021', 'sku-0933'] },
        },
      },
    ],
    acdp_version: '0.3.0',
    ctx_id: 'acdp://registry.example.com/9f1d4f10-7b2a-4c3e-8d5b-2a6f81c4e9b7',
    lineage_id: 'lin:sha256:c7fef01c000f8edaa9cb46122ceb5d7bca38328f002fb0f40e362e3b289bbb2a',
    origin_registry: 'registry.example.com',
    created_at: '2026-06-08T09:00:00.123Z',
    content_hash: 'sha256:0000000000000000000000000000000000000000000000000000000000000000',
    signature: {
      algorithm: 'ed25519',
      key_id: 'did:web:agents.example.com:pricing-analyst#key-1',
      value: 'ErkbV+FUdn49TgF3zJ3RBe3AmyGxLVAQdMjlhabUfM96qendmWwdVodX/SV3O3aKLypbUu6gmb5Npt3O/w7nDQ==',
    },
  }
}

const body = sampleBody()
const bodyText = JSON.stringify(body)
const seed = new Uint8Array(32).fill(42)
const publicKey = ed25519PublicKeyFromSeed(seed)
const contentHash = computeContentHash(body)
const message = new TextEncoder().encode(contentHash)
const edSignature = signEd25519(seed, message)
const edSignatureBase64 = signContentHash({ algorithm: 'ed25519', privateKey: seed, contentHash })
const rawKeyObject = createPublicKey({
  key: Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), publicKey]),
  format: 'der',
  type: 'spki',
})
const p256Private = new Uint8Array(32).fill(7)
const p256Public = p256PublicKeyFromPrivate(p256Private)
const p256Signature = signEcdsaP256(p256Private, message)

export const cryptoCases: BenchCase[] = [
  {
    name: `JCS + content_hash of a ${bodyText.length}-byte body`,
    targetOpsPerSecond: 30_000,
    run: () => computeContentHash(body),
  },
  { name: `JCS canonicalize only (${bodyText.length} bytes)`, run: () => canonicalize(body) },
  { name: `parseJsonStrict (${bodyText.length} bytes)`, run: () => parseJsonStrict(bodyText) },
  { name: `JSON.parse baseline (${bodyText.length} bytes)`, run: () => JSON.parse(bodyText) },
  {
    name: 'Ed25519 raw node:crypto verify (prepared KeyObject)',
    run: () => verify(null, message, rawKeyObject, edSignature),
  },
  { name: 'Ed25519 strict verifyEd25519 (raw key bytes)', run: () => verifyEd25519(publicKey, message, edSignature) },
  {
    name: 'verifyContentSignature ed25519 (base64 + strict verify)',
    run: () => verifyContentSignature({ algorithm: 'ed25519', publicKey, contentHash, signature: edSignatureBase64 }),
  },
  {
    name: 'ECDSA P-256 verifyEcdsaP256 (compressed key bytes)',
    run: () => verifyEcdsaP256(p256Public, message, p256Signature),
  },
]

// ---------------------------------------------------------------------------------------------
// Merkle / transparency-log cases — owned by the log engineer. Append BenchCase entries here
// (e.g. inclusion-proof verification at a given tree size); they run after the crypto cases.
// ---------------------------------------------------------------------------------------------

export const merkleCases: BenchCase[] = []

// ---------------------------------------------------------------------------------------------
// Runner
// ---------------------------------------------------------------------------------------------

function format(n: number): string {
  return Math.round(n).toLocaleString('en-US')
}

export function runCases(cases: readonly BenchCase[]): BenchResult[] {
  const results: BenchResult[] = []
  for (const bench of cases) {
    const opsPerSecond = measure(bench.run)
    const result: BenchResult = { name: bench.name, opsPerSecond }
    if (bench.targetOpsPerSecond !== undefined) result.targetOpsPerSecond = bench.targetOpsPerSecond
    results.push(result)
    const verdict =
      bench.targetOpsPerSecond === undefined
        ? ''
        : opsPerSecond >= bench.targetOpsPerSecond
          ? `  (target ≥ ${format(bench.targetOpsPerSecond)}: met)`
          : `  (target ≥ ${format(bench.targetOpsPerSecond)}: MISSED)`
    console.log(`${bench.name.padEnd(62)} ${format(opsPerSecond).padStart(12)} ops/s${verdict}`)
  }
  return results
}

/**
 * Ratio of `candidate` to `baseline` throughput, measured in interleaved rounds so that load from
 * other processes on a shared machine hits both sides alike.
 */
export function compareInterleaved(baseline: () => unknown, candidate: () => unknown, rounds = 10): number {
  const roundMs = Math.max(50, MEASURE_MS / rounds)
  let baselineOps = 0
  let candidateOps = 0
  for (let i = 0; i < rounds; i++) {
    baselineOps += measure(baseline, roundMs)
    candidateOps += measure(candidate, roundMs)
  }
  return candidateOps / baselineOps
}

console.log(`@acdp/protocol bench (Node ${process.version}, ${MEASURE_MS} ms per case)`)
const results = runCases([...cryptoCases, ...merkleCases])
let missed = results.filter((r) => r.targetOpsPerSecond !== undefined && r.opsPerSecond < r.targetOpsPerSecond).length
const ratio = compareInterleaved(
  () => verify(null, message, rawKeyObject, edSignature),
  () => verifyEd25519(publicKey, message, edSignature),
)
const ratioOk = ratio >= 0.8
if (!ratioOk) missed++
console.log(
  `strict / raw Ed25519 verify, interleaved rounds: ${(ratio * 100).toFixed(1)}%  (target ≥ 80%: ${ratioOk ? 'met' : 'MISSED'})`,
)
if (missed > 0) process.exitCode = 1
const { benchMerkle } = await import(new URL('./protocol-merkle.ts', import.meta.url).href)
await benchMerkle()
