/**
 * Synthetic publishes as services/publish.ts hands them to the store, shared by the store-only benches
 * (bench/registry-store-trust.ts, bench/wal-pages.ts). Sizes are close to bench/registry.ts's bodies.
 */
import { randomBytes, randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { computeLeafHash, encodeMintedLogLeaf, mintRegistryReceipt, type SigningKey } from '@acdp/protocol'
import {
  createKyselyStore,
  migrateRegistryDatabase,
  type IdempotencyRecord,
  type NewContext,
  type RegistryDatabase,
} from '@acdp/registry'
import { openDatabase } from '@acdp/storage'

const HOST = 'bench.registry.test'
const AGENT = 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK'
const KEY: SigningKey = { algorithm: 'ed25519', keyId: `did:web:${HOST}#receipt-key-1`, privateKey: randomBytes(32) }

/** `off`: no trust layer; `receipt`: a receipt in the context row; `receipt+log`: receipt and log leaf. */
export type TrustVariant = 'off' | 'receipt' | 'receipt+log'
const hex = () => randomBytes(32).toString('hex')

/** Publish number `i`: the context row and its idempotency record. */
export function publishOf(i: number, variant: TrustVariant): [NewContext, IdempotencyRecord] {
  const ctxId = `acdp://${HOST}/${randomUUID()}`
  const lineageId = `lin:sha256:${hex()}`
  const createdAt = new Date().toISOString()
  const contentHash = `sha256:${hex()}`
  const minted =
    variant === 'off'
      ? undefined
      : mintRegistryReceipt(
          {
            registry_did: `did:web:${HOST}`,
            ctx_id: ctxId,
            lineage_id: lineageId,
            origin_registry: HOST,
            created_at: createdAt,
            content_hash: contentHash,
            key_fingerprint: `sha256:${hex()}`,
          },
          KEY,
        )
  const receiptJson = minted === undefined ? null : JSON.stringify(minted.receipt)
  const leafBytes = minted !== undefined && variant === 'receipt+log' ? encodeMintedLogLeaf(minted) : undefined
  const now = Date.now()
  const context: NewContext = {
    ctxId,
    tenantId: 'default',
    lineageId,
    version: 1,
    supersedes: null,
    agentId: AGENT,
    contextType: 'data_snapshot',
    visibility: 'public',
    audience: [],
    title: `Bench observation ${i}`,
    summary: `Synthetic reading number ${i} for the registry benchmark`,
    description: null,
    domain: 'benchmarks',
    schemaUri: null,
    tags: ['bench', `shard-${i % 16}`],
    derivedFrom: [],
    contentHash,
    createdAt,
    createdAtMs: now,
    expiresAtMs: null,
    dataPeriodStartMs: null,
    dataPeriodEndMs: null,
    bodyText: JSON.stringify({ ctx_id: ctxId, padding: 'x'.repeat(1100) }),
    registryReceipt: receiptJson,
    logLeaf:
      leafBytes === undefined
        ? null
        : { leafJson: Buffer.from(leafBytes).toString('utf8'), leafHash: computeLeafHash(leafBytes) },
  }
  const response = `{"ctx_id":"${ctxId}","lineage_id":"${lineageId}"${receiptJson === null ? '' : `,"registry_receipt":${receiptJson}`}}`
  const record: IdempotencyRecord = {
    tenantId: 'default',
    agentId: AGENT,
    idempotencyKey: randomUUID(),
    contentHash,
    signatureAlgorithm: 'ed25519',
    signatureKeyId: `${AGENT}#key-1`,
    signatureValue: randomBytes(64).toString('base64'),
    ctxId,
    responseJson: response,
    createdAtMs: now,
    expiresAtMs: now + 86_400_000,
  }
  return [context, record]
}

/**
 * Writes `count` publishes of `variant` through a scratch registry store (SQLite file, the real `insertContext`
 * and group-commit writer) in batches of `batch`, with the WAL checkpoint worker held off so the `-wal` file keeps
 * every frame the commits wrote. The first `warmUp` are written first; then `measure` gets the file's path and a
 * function writing the rest, to take its readings around (the store is still open when it returns). The scratch
 * directory is removed afterwards.
 */
export async function measureScratchPublishes<T>(
  variant: TrustVariant,
  options: { batch: number; count: number; warmUp: number },
  measure: (path: string, writeMeasured: () => Promise<void>) => Promise<T> | T,
): Promise<T> {
  const dir = mkdtempSync(join(tmpdir(), 'acdp-bench-store-'))
  const path = join(dir, 'registry.db')
  const database = await openDatabase<RegistryDatabase>({
    kind: 'sqlite',
    path,
    walMaxBytes: 2 ** 30,
    checkpointWorkerStartBytes: 2 ** 40,
  })
  try {
    await migrateRegistryDatabase(database)
    const store = createKyselyStore(database)
    const publishes = Array.from({ length: options.count }, (_, i) => publishOf(i, variant))
    const write = async (from: number, to: number) => {
      for (let i = from; i < to; i += options.batch) {
        const group = publishes.slice(i, Math.min(i + options.batch, to))
        await Promise.all(group.map(([context, record]) => store.insertContext(context, record)))
      }
    }
    await write(0, options.warmUp)
    return await measure(path, () => write(options.warmUp, options.count))
  } finally {
    await database.close()
    rmSync(dir, { recursive: true, force: true })
  }
}
