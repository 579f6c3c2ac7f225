/**
 * Synthetic publishes as services/publish.ts hands them to the store, shared by the store-only benches
 * (bench/registry-store-trust.ts, bench/wal-pages.ts). Sizes are close to bench/registry.ts's bodies.
 */
import { randomBytes, randomUUID } from 'node:crypto'
import { computeLeafHash, encodeMintedLogLeaf, mintRegistryReceipt, type SigningKey } from '@acdp/protocol'
import type { IdempotencyRecord, NewContext } from '@acdp/registry'

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
