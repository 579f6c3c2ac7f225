/**
 * The inspector's evidence marks with trust material relayed by the control plane: a registry receipt and a log
 * inclusion proof minted here with the protocol's own signing code (receipt key in a did:web document), checked
 * by the module the browser bundle runs. Tampered receipts, proofs and foreign keys are not verified; a DID
 * document the relay could not read leaves the evidence not available, with the reason.
 */
import {
  buildCheckpoint,
  buildLogLeaf,
  buildPublishRequest,
  completeProducerContent,
  computeContentHash,
  computeKeyFingerprint,
  computeLogLeafHash,
  createProducerKey,
  ed25519PublicKeyFromSeed,
  encodeMultibaseKey,
  formatLogId,
  formatSha256,
  MemoryMerkleTree,
  parseDidKey,
  signCheckpoint,
  signRegistryReceipt,
} from '@acdp/protocol'
import { describe, expect, it } from 'vitest'
import { inspectContext, type Mark, type RegistryTrustMaterial } from './inspect-context.js'

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests tamper with untyped JSON documents
type Json = Record<string, any>

const AUTHORITY = 'registry.example.com'
const REGISTRY_DID = `did:web:${AUTHORITY}`
const RECEIPT_KEY_ID = `${REGISTRY_DID}#receipt-key-1`
const LOG_ID = formatLogId(REGISTRY_DID, '1')
const NOW = new Date('2026-06-12T09:00:05.000Z')

function registryDocument(seed: Uint8Array): string {
  return JSON.stringify({
    '@context': ['https://www.w3.org/ns/did/v1'],
    id: REGISTRY_DID,
    verificationMethod: [
      {
        id: RECEIPT_KEY_ID,
        type: 'Ed25519VerificationKey2020',
        controller: REGISTRY_DID,
        publicKeyMultibase: encodeMultibaseKey({ algorithm: 'ed25519', publicKey: ed25519PublicKeyFromSeed(seed) }),
      },
    ],
    assertionMethod: [RECEIPT_KEY_ID],
  })
}

/** A signed context with its receipt, and the inclusion proof of its leaf (index 2 of 5) under a signed checkpoint. */
function published(seed = new Uint8Array(32).fill(9)) {
  const producer = createProducerKey()
  const content = completeProducerContent({ title: 'evidence', type: 'analysis' }, producer)
  const request = buildPublishRequest({
    body: content,
    algorithm: producer.algorithm,
    privateKey: producer.privateKey,
    keyId: producer.keyId,
  })
  const body: Json = {
    ...request,
    ctx_id: `acdp://${AUTHORITY}/9f1d4f10-7b2a-4c3e-8d5b-2a6f81c4e9b7`,
    lineage_id: `lin:sha256:${'1'.repeat(64)}`,
    origin_registry: AUTHORITY,
    created_at: '2026-06-12T09:00:00.000Z',
  }
  const key = { algorithm: 'ed25519' as const, keyId: RECEIPT_KEY_ID, privateKey: seed }
  const receipt = signRegistryReceipt(
    {
      registry_did: REGISTRY_DID,
      ctx_id: body['ctx_id'],
      lineage_id: body['lineage_id'],
      origin_registry: AUTHORITY,
      created_at: body['created_at'],
      content_hash: computeContentHash(body),
      key_fingerprint: computeKeyFingerprint(parseDidKey(producer.did)),
    },
    key,
  )
  const tree = new MemoryMerkleTree()
  for (let i = 0; i < 5; i += 1) {
    if (i === 2) tree.appendLeafHash(computeLogLeafHash(buildLogLeaf(receipt)))
    else tree.appendLeafHash(new Uint8Array(32).fill(i + 1))
  }
  const checkpoint = signCheckpoint(
    buildCheckpoint({ logId: LOG_ID, treeSize: 5, rootHash: tree.computeRoot(), timestamp: NOW }),
    key,
  )
  const inclusion = {
    log_id: LOG_ID,
    leaf_index: 2,
    tree_size: 5,
    inclusion_path: tree.proveInclusion(2, 5).map(formatSha256),
    log_checkpoint: checkpoint,
  }
  const envelope: Json = { body, registry_state: { status: 'active' }, registry_receipt: receipt }
  const trust: RegistryTrustMaterial = {
    now: NOW,
    didDocument: { did: REGISTRY_DID, document: registryDocument(seed) },
    logEvidence: { log_inclusion: inclusion, witness_signatures: null },
  }
  return { envelope, trust, inclusion }
}

async function marks(envelope: unknown, trust?: RegistryTrustMaterial): Promise<Record<string, Mark>> {
  const inspection = await inspectContext(envelope, trust)
  return Object.fromEntries(inspection.items.map((item) => [item.subject, item.mark]))
}

describe('inspectContext with relayed registry trust material', () => {
  it('verifies the receipt and the log inclusion against the relayed DID document', async () => {
    const { envelope, trust } = published()
    expect(await marks(envelope, trust)).toEqual({
      body: 'verified',
      signature: 'verified',
      registry_receipt: 'verified',
      log_inclusion: 'verified',
      witness_signatures: 'not_available',
    })
  })

  it('marks a receipt altered after signing, and the inclusion resting on it, not verified', async () => {
    const { envelope, trust } = published()
    envelope['registry_receipt'].created_at = '2026-06-12T09:00:01.000Z'
    expect(await marks(envelope, trust)).toMatchObject({
      body: 'verified',
      registry_receipt: 'failed',
      // The proof's leaf is rebuilt from the receipt: not checked once the receipt failed.
      log_inclusion: 'not_checked',
    })
  })

  it('marks a tampered inclusion path not verified while the receipt still verifies', async () => {
    const { envelope, trust, inclusion } = published()
    const path = [...inclusion.inclusion_path]
    path[0] = `sha256:${'0'.repeat(64)}`
    const lying = {
      ...trust,
      logEvidence: { log_inclusion: { ...inclusion, inclusion_path: path }, witness_signatures: null },
    }
    expect(await marks(envelope, lying)).toMatchObject({ registry_receipt: 'verified', log_inclusion: 'failed' })
  })

  it('does not accept a receipt key swapped in the relayed DID document', async () => {
    const { envelope, trust } = published()
    const swapped = {
      ...trust,
      didDocument: { did: REGISTRY_DID, document: registryDocument(new Uint8Array(32).fill(3)) },
    }
    expect(await marks(envelope, swapped)).toMatchObject({ body: 'verified', registry_receipt: 'failed' })
  })

  it('never answers another DID from the relayed document: a did:web producer stays not available', async () => {
    const { trust } = published()
    const producer = createProducerKey({ didWeb: 'did:web:agent.example' })
    const content = completeProducerContent({ title: 'web producer', type: 'analysis' }, producer)
    const request = buildPublishRequest({
      body: content,
      algorithm: producer.algorithm,
      privateKey: producer.privateKey,
      keyId: producer.keyId,
    })
    const envelope = {
      body: {
        ...request,
        ctx_id: `acdp://${AUTHORITY}/1f1d4f10-7b2a-4c3e-8d5b-2a6f81c4e9b7`,
        lineage_id: `lin:sha256:${'2'.repeat(64)}`,
        origin_registry: AUTHORITY,
        created_at: '2026-06-12T09:00:00.000Z',
      },
    }
    expect(await marks(envelope, trust)).toMatchObject({ body: 'verified', signature: 'not_available' })
  })

  it('leaves the evidence not available, with the reason, when the DID document could not be relayed', async () => {
    const { envelope, trust } = published()
    const inspection = await inspectContext(envelope, {
      now: NOW,
      didDocumentProblem: "the registry's DID document is not available (REGISTRY_NOT_FOUND)",
      ...(trust.logEvidence ? { logEvidence: trust.logEvidence } : {}),
    })
    const receipt = inspection.items.find((item) => item.subject === 'registry_receipt')
    expect(receipt).toMatchObject({ mark: 'not_available', detail: expect.stringContaining('REGISTRY_NOT_FOUND') })
  })

  it('marks the evidence of a tampered body not verified', async () => {
    const { envelope, trust } = published()
    envelope['body'].title = 'rewritten'
    expect(await marks(envelope, trust)).toMatchObject({
      body: 'failed',
      registry_receipt: 'not_checked',
      log_inclusion: 'not_checked',
    })
  })
})
