/**
 * A fake ACDP registry built only from the protocol library, for tests that need an origin or an audited log:
 * it signs contexts' receipts and log checkpoints with test keys, keeps a Merkle log of its publishes, serves the
 * wire documents (`answer(path)`), and can be made dishonest: `rewriteHistory()` replaces an already logged leaf,
 * so its later checkpoints are validly signed yet inconsistent with earlier ones; `tamper` corrupts one kind of
 * evidence on the way out. Transport (HTTP/HTTPS servers) is the test's business.
 */
import {
  buildCheckpoint,
  buildLogLeaf,
  computeContentHash,
  computeKeyFingerprint,
  computeLogLeafHash,
  deriveLineageId,
  didKeyKeyId,
  ed25519PublicKeyFromSeed,
  encodeDidKey,
  encodeLogLeaf,
  formatLogId,
  formatSha256,
  type LogCheckpoint,
  MemoryMerkleTree,
  type RegistryReceipt,
  type SigningKey,
  signCheckpoint,
  signContentHash,
  signRegistryReceipt,
} from '../../src/index.js'

export interface FakeProducer {
  did: string
  keyId: string
  privateKey: Uint8Array
  publicKey: Uint8Array
}

/** A did:web producer with a deterministic Ed25519 key. */
export function fakeProducer(did: string, seedByte: number, fragment = 'key-1'): FakeProducer {
  const privateKey = new Uint8Array(32).fill(seedByte)
  return { did, keyId: `${did}#${fragment}`, privateKey, publicKey: ed25519PublicKeyFromSeed(privateKey) }
}

/** A did:key producer with a deterministic Ed25519 key (resolves without any network). */
export function fakeDidKeyProducer(seedByte: number): FakeProducer {
  const privateKey = new Uint8Array(32).fill(seedByte)
  const publicKey = ed25519PublicKeyFromSeed(privateKey)
  const did = encodeDidKey({ algorithm: 'ed25519', publicKey })
  return { did, keyId: didKeyKeyId(did), privateKey, publicKey }
}

/** A DID document listing `keys` (all under one DID) in verificationMethod and `assert` of them in assertionMethod. */
export function didDocumentOf(
  did: string,
  keys: Array<{ keyId: string; publicKey: Uint8Array }>,
  assert = keys,
): Record<string, unknown> {
  return {
    '@context': ['https://www.w3.org/ns/did/v1'],
    id: did,
    verificationMethod: keys.map((k) => ({
      id: k.keyId,
      type: 'JsonWebKey2020',
      controller: did,
      publicKeyJwk: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(k.publicKey).toString('base64url') },
    })),
    assertionMethod: assert.map((k) => k.keyId),
  }
}

export type FakeTamper = 'receipt_signature' | 'receipt_content_hash' | 'inclusion_path' | 'checkpoint_signature'

export interface FakeRegistryOptions {
  authority: string
  /** Seed byte of the receipt (and checkpoint) key. */
  receiptSeed?: number
  profiles?: string[]
  clock?: () => Date
}

interface Entry {
  envelope: Record<string, unknown>
  receipt: RegistryReceipt
  leafIndex: number
}

export class FakeRegistry {
  readonly authority: string
  readonly registryDid: string
  readonly logId: string
  readonly receiptKey: SigningKey & { publicKey: Uint8Array }
  profiles: string[]
  tamper: FakeTamper | undefined
  /** Whether full retrievals carry `registry_receipt` (a dishonest origin may drop it). */
  serveReceipts = true
  /** `registry_state.status` of full retrievals (a hostile origin may serve a malformed one, RFC-ACDP-0004 §4.1). */
  servedStatus: unknown = 'active'
  /** `registry_did` its capabilities claim; default its own (a hostile origin may claim another identity). */
  claimedRegistryDid: string | undefined
  readonly #clock: () => Date
  #tree = new MemoryMerkleTree()
  #leaves: Uint8Array[] = []
  readonly #entries = new Map<string, Entry>()
  #next = 1

  constructor(options: FakeRegistryOptions) {
    this.authority = options.authority
    this.registryDid = `did:web:${options.authority}`
    this.logId = formatLogId(this.registryDid, '1')
    const privateKey = new Uint8Array(32).fill(options.receiptSeed ?? 0x11)
    this.receiptKey = {
      algorithm: 'ed25519',
      keyId: `${this.registryDid}#receipt-key-1`,
      privateKey,
      publicKey: ed25519PublicKeyFromSeed(privateKey),
    }
    this.profiles = options.profiles ?? [
      'acdp-registry-core',
      'acdp-registry-receipts',
      'acdp-registry-transparency-log',
    ]
    this.#clock = options.clock ?? (() => new Date('2026-05-01T12:00:00.000Z'))
  }

  get treeSize(): number {
    return this.#tree.size
  }

  /** The registry itself as a signer (registry-attested revocations, RFC-ACDP-0014 §6). */
  asProducer(): FakeProducer {
    return {
      did: this.registryDid,
      keyId: this.receiptKey.keyId,
      privateKey: this.receiptKey.privateKey,
      publicKey: this.receiptKey.publicKey,
    }
  }

  /** The registry's DID document (its receipt key, current). */
  didDocument(): Record<string, unknown> {
    return didDocumentOf(this.registryDid, [this.receiptKey])
  }

  capabilities(): Record<string, unknown> {
    return {
      acdp_version: '0.5.0',
      registry_did: this.claimedRegistryDid ?? this.registryDid,
      supported_signature_algorithms: ['ed25519'],
      supported_did_methods: ['did:web'],
      profiles: this.profiles,
      supports_idempotency_key: true,
      anonymous_public_reads: true,
      limits: { max_payload_bytes: 1_048_576, max_embedded_bytes: 65_536, idempotency_key_ttl_seconds: 86_400 },
    }
  }

  /** Publishes a public context signed by `producer`; returns its ctx_id. `createdAt` overrides the clock. */
  publish(producer: FakeProducer, fields: Record<string, unknown> = {}, createdAtOverride?: string): string {
    const uuid = `00000000-0000-4000-8000-${String(this.#next++).padStart(12, '0')}`
    const ctxId = `acdp://${this.authority}/${uuid}`
    const createdAt = createdAtOverride ?? new Date(this.#clock().getTime() + this.#next).toISOString()
    const producerContent: Record<string, unknown> = {
      acdp_version: '0.5.0',
      version: 1,
      supersedes: null,
      agent_id: producer.did,
      contributors: [],
      title: `Context ${this.#next}`,
      type: 'data_snapshot',
      data_refs: [],
      derived_from: [],
      visibility: 'public',
      ...fields,
    }
    const contentHash = computeContentHash(producerContent)
    const body = {
      ...producerContent,
      content_hash: contentHash,
      signature: {
        algorithm: 'ed25519',
        key_id: producer.keyId,
        value: signContentHash({ algorithm: 'ed25519', privateKey: producer.privateKey, contentHash }),
      },
      ctx_id: ctxId,
      lineage_id: deriveLineageId(ctxId),
      origin_registry: this.authority,
      created_at: createdAt,
    }
    const receipt = signRegistryReceipt(
      {
        registry_did: this.registryDid,
        ctx_id: ctxId,
        lineage_id: body.lineage_id,
        origin_registry: this.authority,
        created_at: createdAt,
        content_hash: contentHash,
        key_fingerprint: computeKeyFingerprint({ algorithm: 'ed25519', publicKey: producer.publicKey }),
      },
      this.receiptKey,
    )
    const leaf = encodeLogLeaf(buildLogLeaf(receipt))
    this.#leaves.push(leaf)
    const leafIndex = this.#tree.appendLeaf(leaf)
    this.#entries.set(ctxId, {
      envelope: { body, registry_state: { status: 'active' }, registry_receipt: receipt },
      receipt,
      leafIndex,
    })
    return ctxId
  }

  /** Dishonest: replaces leaf `index` with another one and rebuilds the tree (same log_id, same key). */
  rewriteHistory(index = 0): void {
    const forged = computeLogLeafHash(<never>{
      ...(JSON.parse(Buffer.from(this.#leaves[index] as Uint8Array).toString('utf8')) as Record<string, string>),
      content_hash: `sha256:${'e'.repeat(64)}`,
    })
    const tree = new MemoryMerkleTree()
    this.#leaves.forEach((leaf, i) => (i === index ? tree.appendLeafHash(forged) : tree.appendLeaf(leaf)))
    this.#tree = tree
  }

  checkpoint(treeSize = this.#tree.size): LogCheckpoint {
    const checkpoint = signCheckpoint(
      buildCheckpoint({
        logId: this.logId,
        treeSize,
        rootHash: this.#tree.computeRoot(treeSize),
        timestamp: this.#clock(),
      }),
      this.receiptKey,
    )
    if (this.tamper === 'checkpoint_signature') {
      return { ...checkpoint, root_hash: formatSha256(new Uint8Array(32).fill(7)) }
    }
    return checkpoint
  }

  inclusion(ctxId: string, treeSize = this.#tree.size): Record<string, unknown> | undefined {
    const entry = this.#entries.get(ctxId)
    if (!entry) return undefined
    const path = this.#tree.proveInclusion(entry.leafIndex, treeSize).map(formatSha256)
    if (this.tamper === 'inclusion_path' && path.length > 0) path[0] = formatSha256(new Uint8Array(32).fill(9))
    return {
      log_id: this.logId,
      leaf_index: entry.leafIndex,
      tree_size: treeSize,
      inclusion_path: path,
      log_checkpoint: this.checkpoint(treeSize),
    }
  }

  consistency(first: number, second: number): Record<string, unknown> {
    return {
      log_id: this.logId,
      first_tree_size: first,
      second_tree_size: second,
      consistency_path: this.#tree.proveConsistency(first, second).map(formatSha256),
      log_checkpoint: this.checkpoint(second),
    }
  }

  envelope(ctxId: string): Record<string, unknown> | undefined {
    const entry = this.#entries.get(ctxId)
    if (!entry) return undefined
    const envelope: Record<string, unknown> = structuredClone(entry.envelope)
    if (!this.serveReceipts) delete envelope.registry_receipt
    envelope.registry_state = { ...(envelope.registry_state as Record<string, unknown>), status: this.servedStatus }
    const receipt = envelope.registry_receipt as Record<string, unknown> | undefined
    if (receipt && this.tamper === 'receipt_signature') {
      const signature = receipt.signature as { value: string }
      signature.value = `${signature.value.startsWith('A') ? 'B' : 'A'}${signature.value.slice(1)}`
    }
    if (receipt && this.tamper === 'receipt_content_hash') receipt.content_hash = `sha256:${'d'.repeat(64)}`
    return envelope
  }

  /** The registry's HTTP surface: `{status, body}` for a request path (query included). */
  answer(pathAndQuery: string): { status: number; body: string } {
    const url = new URL(pathAndQuery, `https://${this.authority}`)
    const json = (status: number, value: unknown) => ({ status, body: JSON.stringify(value) })
    const notFound = json(404, { error: { code: 'not_found', message: 'Not found.' } })
    if (url.pathname === '/.well-known/acdp.json') return json(200, this.capabilities())
    if (url.pathname === '/.well-known/did.json') return json(200, this.didDocument())
    if (url.pathname === '/log/checkpoint') return json(200, this.checkpoint())
    if (url.pathname === '/log/proof') {
      const ctxId = url.searchParams.get('ctx_id')
      if (ctxId !== null) {
        const sizeParam = url.searchParams.get('tree_size')
        const treeSize = sizeParam === null ? this.treeSize : Number(sizeParam)
        const leafIndex = this.#entries.get(ctxId)?.leafIndex
        // As a real log: a proof at a size that does not contain the leaf yet is refused.
        if (
          !Number.isInteger(treeSize) ||
          treeSize > this.treeSize ||
          (leafIndex !== undefined && leafIndex >= treeSize)
        ) {
          return json(400, { error: { code: 'schema_violation', message: 'tree_size does not contain the leaf' } })
        }
        const inclusion = this.inclusion(ctxId, treeSize)
        return inclusion ? json(200, inclusion) : notFound
      }
      const first = Number(url.searchParams.get('first'))
      const second = Number(url.searchParams.get('second'))
      if (!(
        Number.isInteger(first) &&
        Number.isInteger(second) &&
        first > 0 &&
        first <= second &&
        second <= this.treeSize
      )) {
        return json(400, { error: { code: 'schema_violation', message: 'bad sizes' } })
      }
      return json(200, this.consistency(first, second))
    }
    if (url.pathname === '/contexts/search') {
      // Just enough of RFC-ACDP-0005 for revocation discovery: exact type and agent_id filters.
      const type = url.searchParams.get('type')
      const agent = url.searchParams.get('agent_id')
      const matches = [...this.#entries.entries()]
        .filter(([, e]) => {
          const body = e.envelope.body as Record<string, unknown>
          return (type === null || body.type === type) && (agent === null || body.agent_id === agent)
        })
        .map(([ctxId]) => ({ ctx_id: ctxId }))
      return json(200, { matches })
    }
    if (url.pathname.startsWith('/contexts/')) {
      const envelope = this.envelope(decodeURIComponent(url.pathname.slice('/contexts/'.length)))
      return envelope ? json(200, envelope) : notFound
    }
    return notFound
  }
}
