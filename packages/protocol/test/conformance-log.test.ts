/**
 * Conformance: the trust-layer fixtures of the shared spec, read at test time and reproduced byte for byte —
 * registry receipts (rcpt-*), lineage-head receipts (lhr-*), the transparency log (log-*), witness
 * cosignatures (wit-*), key revocation (rev-*, rot-001) and the lifecycle arithmetic (lc-*). Golden vectors
 * are recomputed from their inputs and test keys; failure fixtures must fail at the check they name.
 */
import { describe, expect, it, vi } from 'vitest'
import {
  type Fixture,
  describeConformance,
  loadFixtures,
  reportMissingConformance,
} from '../../../test/support/conformance.js'
import {
  buildCheckpoint,
  computeCheckpointHash,
  signCheckpoint,
  verifyCheckpoint,
  verifyLogConsistency,
  verifyLogInclusion,
} from '../src/checkpoint/index.js'
import {
  computeCosignatureHash,
  cosignCheckpoint,
  countWitnesses,
  decideCosignature,
  verifyCosignature,
} from '../src/cosignature/index.js'
import { decodeMultibaseKey, parseDidDocument } from '../src/did/index.js'
import { isProtocolError, type ProtocolError } from '../src/errors.js'
import {
  computeContentHash,
  deriveLineageId,
  extractProducerContent,
  formatSha256,
  parseSha256,
} from '../src/hash/index.js'
import { canonicalize } from '../src/jcs/index.js'
import { computeKeyFingerprint, type PublicKeyMaterial } from '../src/keys/index.js'
import {
  deriveContextStatus,
  isLifecycleTransitionAllowed,
  isRetracted,
  signLifecycleEvent,
  validateLifecycleEvent,
  verifyLifecycleEventSignature,
} from '../src/lifecycle/index.js'
import {
  buildLogLeaf,
  computeEmptyTreeHash,
  computeLogLeafHash,
  computeMerkleRoot,
  encodeLogLeaf,
  encodeMintedLogLeaf,
  MemoryMerkleTree,
  verifyInclusionProof,
} from '../src/merkle/index.js'
import {
  computeReceiptHash,
  type ResolveVerificationKey,
  type SigningKey,
  signLineageHeadReceipt,
  signReceiptHash,
  signRegistryReceipt,
  verifyLineageHeadReceipt,
  verifyReceiptSignature,
  verifyRegistryReceipt,
} from '../src/receipt/index.js'
import {
  assertRevocationNotSelfSigned,
  evaluateCompromiseBoundary,
  parseKeyRevocation,
  selectEffectiveCompromisedSince,
} from '../src/revocation/index.js'
import {
  decodeBase64Strict,
  ed25519PublicKeyFromSeed,
  encodeBase64,
  signContentHash,
  verifyContentSignature,
} from '../src/signature/index.js'
import type { LogCheckpoint, RegistryReceipt } from '../src/wire/log.js'

reportMissingConformance('conformance-log')

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- fixture content is untyped JSON
type Json = Record<string, any>

const ran = new Set<string>()
let vectors = 0
const descriptive: string[] = []

/** One fixture, or fails the suite when it is missing while the conformance folder exists. */
function fixture(prefix: string): Fixture {
  const [found] = loadFixtures(prefix)
  if (!found) throw new Error(`fixture ${prefix} not found in the conformance folder`)
  return found
}
const mark = (fx: Fixture, count = 1) => {
  ran.add(fx.id)
  vectors += count
}

const hex = (bytes: Uint8Array) => Buffer.from(bytes).toString('hex')
const fromHex = (value: string) => new Uint8Array(Buffer.from(value, 'hex'))
const ed25519Key = (publicKeyHex: string): PublicKeyMaterial => ({
  algorithm: 'ed25519',
  publicKey: fromHex(publicKeyHex),
})
const signingKey = (seedHex: string, keyId: string): SigningKey => ({
  algorithm: 'ed25519',
  keyId,
  privateKey: fromHex(seedHex),
})
/** A resolver answering exactly the given key ids, like a DID document would. */
const resolverFor = (keys: Record<string, PublicKeyMaterial>): ResolveVerificationKey =>
  vi.fn(async (keyId: string) => {
    const key = keys[keyId]
    if (!key) throw new Error(`unexpected key resolution for ${keyId}`)
    return key
  })
const hostOf = (did: string) => did.replace(/^did:web:/, '')
const withoutNote = <T extends Json>(value: T): Omit<T, 'note'> => {
  const { note: _note, ...rest } = value
  return rest
}
/** Awaits a rejection and returns the ProtocolError's code and reason. */
async function failure(promise: Promise<unknown> | (() => unknown)): Promise<{ code: string; reason: unknown }> {
  try {
    await (typeof promise === 'function' ? promise() : promise)
  } catch (error) {
    if (!isProtocolError(error)) throw error
    return { code: error.code, reason: error.details?.['reason'] }
  }
  throw new Error('expected a ProtocolError, nothing was thrown')
}

describeConformance('trust-layer conformance fixtures', () => {
  // ---------------- RFC-ACDP-0010 registry receipts ----------------

  describe('rcpt-001 receipt golden (RFC-ACDP-0010 §5)', () => {
    const fx = fixture('rcpt-001')
    const keypair = fx['registry_test_keypair'] as Json
    const key = signingKey(keypair['private_seed_hex'], keypair['key_id'])

    it('derives the registry test public key from its seed', () => {
      const publicKey = ed25519PublicKeyFromSeed(key.privateKey)
      expect(hex(publicKey)).toBe(keypair['public_key_hex'])
      expect(encodeBase64(publicKey)).toBe(keypair['public_key_base64'])
    })

    it.each(fx['vectors'] as Json[])(
      '$name: preimage, hash, signature, fingerprint and §8 verification',
      async (vector) => {
        const unsigned = vector['receipt_unsigned'] as Omit<RegistryReceipt, 'signature'>
        const expected = vector['expected'] as Json
        expect(canonicalize(unsigned)).toBe(expected['canonical_form'])
        expect(computeReceiptHash(unsigned)).toBe(expected['receipt_hash'])
        expect(expected['signature_input']).toBe(expected['receipt_hash'])

        const receipt = signRegistryReceipt(unsigned, key)
        expect(receipt.signature.value).toBe(expected['signature_value_base64'])
        expect(hex(decodeBase64Strict(receipt.signature.value))).toBe(expected['signature_value_hex'])
        expect(receipt).toEqual(expected['registry_receipt'])

        const producerKey = ed25519Key(fx['producer_key'].public_key_hex)
        expect(computeKeyFingerprint(producerKey)).toBe(unsigned.key_fingerprint)

        const verified = await verifyRegistryReceipt({
          receipt: expected['registry_receipt'],
          authority: hostOf(unsigned.registry_did),
          resolveKey: resolverFor({ [keypair['key_id']]: ed25519Key(keypair['public_key_hex']) }),
          context: unsigned,
          contentHash: unsigned.content_hash,
          producerKey,
        })
        expect(verified.receiptHash).toBe(expected['receipt_hash'])
        expect(unsigned.origin_registry).toBe(hostOf(unsigned.registry_did))
        mark(fx)
      },
    )
  })

  describe('rcpt-002 tampered created_at (RFC-ACDP-0010 §8 step 1)', () => {
    const fx = fixture('rcpt-002')
    const input = fx['input'] as Json
    const expected = fx['expected'] as Json

    it('recomputes the tampered preimage hash and refuses the signature', async () => {
      const receipt = input['registry_receipt'] as RegistryReceipt
      expect(computeReceiptHash(receipt)).toBe(expected['tampered_preimage_hash'])
      expect(
        computeReceiptHash({ ...receipt, created_at: fixture('rcpt-001').vectors[0].receipt_unsigned.created_at }),
      ).toBe(expected['original_preimage_hash'])
      const result = await failure(
        verifyRegistryReceipt({
          receipt,
          authority: hostOf(receipt.registry_did),
          resolveKey: resolverFor({ [receipt.signature.key_id]: ed25519Key(input['registry_public_key_hex']) }),
          context: receipt,
          contentHash: receipt.content_hash,
          producerKey: ed25519Key(fixture('rcpt-001')['producer_key'].public_key_hex),
        }),
      )
      expect(result).toEqual({ code: 'verification_failed', reason: 'signature_invalid' })
      expect(expected['outcome']).toBe('failure')
      mark(fx)
    })
  })

  describe('rcpt-003 key fingerprint mismatch (RFC-ACDP-0010 §8 step 5)', () => {
    const fx = fixture('rcpt-003')
    const input = fx['input'] as Json
    const golden = fixture('rcpt-001')
    const keypair = golden['registry_test_keypair'] as Json

    it('refuses a correctly signed receipt naming another producer key', async () => {
      const resolved = ed25519Key(input['resolved_producer_key'].public_key_hex)
      expect(computeKeyFingerprint(resolved)).toBe(input['resolved_producer_key'].correct_fingerprint)
      // The registry signs a receipt whose key_fingerprint names the other key: its own signature verifies.
      const unsigned = { ...golden['vectors'][0].receipt_unsigned, key_fingerprint: input['receipt_key_fingerprint'] }
      const receipt = signRegistryReceipt(unsigned, signingKey(keypair['private_seed_hex'], keypair['key_id']))
      const result = await failure(
        verifyRegistryReceipt({
          receipt,
          authority: hostOf(receipt.registry_did),
          resolveKey: resolverFor({ [keypair['key_id']]: ed25519Key(keypair['public_key_hex']) }),
          context: receipt,
          contentHash: receipt.content_hash,
          producerKey: resolved,
        }),
      )
      expect(result).toEqual({ code: 'verification_failed', reason: 'key_fingerprint_mismatch' })
      mark(fx)
    })
  })

  describe('rcpt-004 registry DID mismatch (RFC-ACDP-0010 §8 step 2)', () => {
    const fx = fixture('rcpt-004')
    const input = fx['input'] as Json
    const golden = fixture('rcpt-001')
    const goldenReceipt = golden['vectors'][0].expected.registry_receipt as RegistryReceipt
    const keypair = golden['registry_test_keypair'] as Json
    const key = signingKey(keypair['private_seed_hex'], keypair['key_id'])

    const cases = [
      {
        name: 'receipt replayed from another authority',
        receipt: () => goldenReceipt,
        authority: input['serving_authority'] as string,
        reason: 'registry_did_mismatch',
      },
      {
        name: 'registry_did and key_id name the serving host but ctx_id/origin_registry another (§4)',
        receipt: () => ({
          ...goldenReceipt,
          registry_did: `did:web:${input['serving_authority']}`,
          signature: { ...goldenReceipt.signature, key_id: `did:web:${input['serving_authority']}#receipt-key-1` },
        }),
        authority: input['serving_authority'] as string,
        reason: 'origin_registry_mismatch',
      },
      {
        name: 'registry_did uses did:key',
        receipt: () => ({ ...goldenReceipt, registry_did: 'did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp' }),
        authority: input['serving_authority'] as string,
        reason: 'registry_did_not_did_web',
      },
      {
        name: 'signature.key_id DID differs from registry_did',
        receipt: () => ({
          ...goldenReceipt,
          signature: { ...goldenReceipt.signature, key_id: 'did:web:other.example#receipt-key-1' },
        }),
        authority: hostOf(goldenReceipt.registry_did),
        reason: 'key_id_not_under_registry_did',
      },
    ]

    it('the excerpt is the rcpt-001 golden receipt', () => {
      expect(goldenReceipt).toMatchObject(input['receipt_excerpt'])
    })

    it.each(cases)('$name → $reason, without resolving any key', async ({ receipt, authority, reason }) => {
      const resolveKey = resolverFor({})
      const result = await failure(
        verifyRegistryReceipt({
          receipt: receipt(),
          authority,
          resolveKey,
          context: goldenReceipt,
          contentHash: goldenReceipt.content_hash,
          producerKey: ed25519Key(golden['producer_key'].public_key_hex),
        }),
      )
      expect(result).toEqual({ code: 'verification_failed', reason })
      expect(resolveKey).not.toHaveBeenCalled()
      mark(fx)
    })

    it('a registry cannot mint a receipt whose origin disagrees with its DID', () => {
      const unsigned = { ...golden['vectors'][0].receipt_unsigned, origin_registry: input['serving_authority'] }
      expect(() => signRegistryReceipt(unsigned, key)).toThrow(
        expect.objectContaining({ code: 'invalid_structure', details: { reason: 'origin_registry_mismatch' } }),
      )
    })
  })

  // ---------------- RFC-ACDP-0011 lineage-head receipts ----------------

  const lhrGolden = () => fixture('lhr-001')['vectors'][0].expected.lineage_head_receipt as Json
  const registryResolver = () => {
    const keypair = fixture('lhr-001')['registry_test_keypair'] as Json
    return resolverFor({ [keypair['key_id']]: ed25519Key(keypair['public_key_hex']) })
  }

  describe('lhr-001 head receipt golden (RFC-ACDP-0011 §5)', () => {
    const fx = fixture('lhr-001')
    const keypair = fx['registry_test_keypair'] as Json

    it('signs with the rcpt-001 registry test key (one receipt key, RFC-ACDP-0011 §5)', () => {
      expect(keypair['private_seed_hex']).toBe(fixture('rcpt-001')['registry_test_keypair'].private_seed_hex)
    })

    it.each(fx['vectors'] as Json[])('$name', async (vector) => {
      const unsigned = vector['receipt_unsigned'] as Json
      const expected = vector['expected'] as Json
      expect(canonicalize(unsigned)).toBe(expected['canonical_form'])
      expect(computeReceiptHash(unsigned)).toBe(expected['receipt_hash'])
      expect(expected['signature_input']).toBe(expected['receipt_hash'])
      const receipt = signLineageHeadReceipt(
        unsigned as never,
        signingKey(keypair['private_seed_hex'], keypair['key_id']),
      )
      expect(hex(decodeBase64Strict(receipt.signature.value))).toBe(expected['signature_value_hex'])
      expect(receipt.signature.value).toBe(expected['signature_value_base64'])
      expect(receipt).toEqual(expected['lineage_head_receipt'])

      // Cross-checks: a version-1 head's lineage is derived from its own ctx_id.
      expect(deriveLineageId(unsigned['head_ctx_id'])).toBe(unsigned['lineage_id'])
      const verified = await verifyLineageHeadReceipt({
        receipt,
        authority: hostOf(unsigned['registry_did']),
        capabilitiesRegistryDid: unsigned['registry_did'],
        resolveKey: registryResolver(),
        lineageId: unsigned['lineage_id'],
        endpoint: 'current',
        served: { ctx_id: unsigned['head_ctx_id'], version: unsigned['head_version'], status: unsigned['head_status'] },
        now: new Date(unsigned['as_of']),
      })
      expect(verified.receiptHash).toBe(expected['receipt_hash'])
      expect(verified.ageMs).toBe(0)
      mark(fx)
    })
  })

  describe('lhr-002 stale head (RFC-ACDP-0011 §7 step 5)', () => {
    const fx = fixture('lhr-002')
    const served = fx['input'].served_response as Json

    it('refuses a genuine receipt attesting another head than the one served on /current', async () => {
      expect(served['lineage_head_receipt']).toEqual(lhrGolden())
      const receipt = served['lineage_head_receipt'] as Json
      const result = await failure(
        verifyLineageHeadReceipt({
          receipt,
          authority: hostOf(receipt['registry_did']),
          resolveKey: registryResolver(),
          lineageId: served['body_excerpt'].lineage_id,
          endpoint: 'current',
          served: { ...served['body_excerpt'], status: served['registry_state'].status },
          now: new Date(Date.parse(receipt['as_of']) + 1_000),
        }),
      )
      expect(result).toEqual({ code: 'verification_failed', reason: 'head_ctx_id_mismatch' })
      mark(fx)
    })
  })

  describe('lhr-003 registry DID mismatch (RFC-ACDP-0011 §7 step 3)', () => {
    const fx = fixture('lhr-003')
    const input = fx['input'] as Json
    const keypair = fixture('lhr-001')['registry_test_keypair'] as Json
    const key = signingKey(keypair['private_seed_hex'], keypair['key_id'])
    const golden = lhrGolden()
    const { signature: _signature, ...unsigned } = golden

    const cases = [
      {
        name: 'golden receipt replayed by another authority',
        receipt: () => golden,
        authority: input['serving_authority'] as string,
        capabilitiesRegistryDid: input['capabilities_registry_did'] as string,
        reason: 'registry_did_mismatch',
      },
      {
        name: 'registry_did uses did:key',
        receipt: () => ({ ...golden, registry_did: 'did:key:z6MkiTBz1ymuepAQ4HEHYSF1H8quG5GLVVQR3djdX3mDooWp' }),
        authority: hostOf(golden['registry_did']),
        capabilitiesRegistryDid: undefined,
        reason: 'registry_did_not_did_web',
      },
      {
        name: 'signature.key_id DID differs from registry_did',
        receipt: () => ({
          ...golden,
          signature: { ...golden['signature'], key_id: `${input['capabilities_registry_did']}#receipt-key-1` },
        }),
        authority: hostOf(golden['registry_did']),
        capabilitiesRegistryDid: undefined,
        reason: 'key_id_not_under_registry_did',
      },
      {
        name: 'capabilities.registry_did disagrees with registry_did',
        receipt: () => golden,
        authority: hostOf(golden['registry_did']),
        capabilitiesRegistryDid: input['capabilities_registry_did'] as string,
        reason: 'capabilities_registry_did_mismatch',
      },
    ]

    it('the excerpt is the lhr-001 golden receipt', () => {
      const { signature_key_id: keyId, ...excerpt } = input['receipt_excerpt'] as Json
      expect(golden).toMatchObject(excerpt)
      expect(golden['signature'].key_id).toBe(keyId)
    })

    it.each(cases)(
      '$name → $reason, without resolving any key',
      async ({ receipt, authority, capabilitiesRegistryDid, reason }) => {
        const resolveKey = resolverFor({})
        const result = await failure(
          verifyLineageHeadReceipt({
            receipt: receipt(),
            authority,
            capabilitiesRegistryDid,
            resolveKey,
            lineageId: golden['lineage_id'],
            endpoint: 'current',
            served: { ctx_id: golden['head_ctx_id'], version: golden['head_version'], status: golden['head_status'] },
            now: new Date(golden['as_of']),
          }),
        )
        expect(result).toEqual({ code: 'verification_failed', reason })
        expect(resolveKey).not.toHaveBeenCalled()
        mark(fx)
      },
    )

    it('head_ctx_id of another authority fails even when validly signed', async () => {
      const foreign = {
        ...unsigned,
        head_ctx_id: golden['head_ctx_id'].replace(hostOf(golden['registry_did']), input['serving_authority']),
      }
      expect(() => signLineageHeadReceipt(foreign as never, key)).toThrow(
        expect.objectContaining({ details: { reason: 'head_ctx_id_authority_mismatch' } }),
      )
      const forged = { ...foreign, signature: signReceiptHash(computeReceiptHash(foreign), key) }
      const result = await failure(
        verifyLineageHeadReceipt({
          receipt: forged,
          authority: hostOf(golden['registry_did']),
          resolveKey: registryResolver(),
          lineageId: golden['lineage_id'],
          endpoint: 'current',
          served: { ctx_id: foreign['head_ctx_id'], version: golden['head_version'], status: golden['head_status'] },
          now: new Date(golden['as_of']),
        }),
      )
      expect(result).toEqual({ code: 'verification_failed', reason: 'head_ctx_id_authority_mismatch' })
    })
  })

  describe('lhr-004 future as_of (RFC-ACDP-0011 §7 step 6)', () => {
    const fx = fixture('lhr-004')
    const input = fx['input'] as Json
    const receipt = input['lineage_head_receipt'] as Json
    const clock = new Date(input['consumer_clock'])
    const skewMs = (input['skew_allowance_seconds'] as number) * 1000
    const keypair = fixture('lhr-001')['registry_test_keypair'] as Json
    const key = signingKey(keypair['private_seed_hex'], keypair['key_id'])
    const verify = (candidate: Json, now: Date) =>
      verifyLineageHeadReceipt({
        receipt: candidate,
        authority: hostOf(candidate['registry_did']),
        resolveKey: registryResolver(),
        lineageId: candidate['lineage_id'],
        endpoint: 'current',
        served: {
          ctx_id: candidate['head_ctx_id'],
          version: candidate['head_version'],
          status: candidate['head_status'],
        },
        now,
        maxFutureSkewMs: skewMs,
      })

    it('the receipt is validly signed, and still fails on as_of', async () => {
      const pinnedHash = /sha256:[0-9a-f]{64}/.exec(input['receipt_hash_note'])?.[0]
      expect(computeReceiptHash(receipt)).toBe(pinnedHash)
      verifyReceiptSignature(pinnedHash as string, receipt['signature'], ed25519Key(input['registry_public_key_hex']))
      expect(await failure(verify(receipt, clock))).toEqual({ code: 'verification_failed', reason: 'as_of_in_future' })
      mark(fx)
    })

    const rows = [
      { name: 'as_of = clock + 60 s (honest skew)', offsetMs: 60_000, passes: true },
      { name: 'as_of = clock + allowance', offsetMs: skewMs, passes: true },
      { name: 'as_of = clock + allowance + 1 s', offsetMs: skewMs + 1_000, passes: false },
      { name: 'as_of one hour old (stale is a freshness verdict, not a failure)', offsetMs: -3_600_000, passes: true },
    ]
    it.each(rows)('$name', async ({ offsetMs, passes }) => {
      const { signature: _signature, ...unsigned } = receipt
      const resigned = signLineageHeadReceipt(
        { ...unsigned, as_of: new Date(clock.getTime() + offsetMs).toISOString() } as never,
        key,
      )
      if (passes) expect((await verify(resigned, clock)).ageMs).toBe(-offsetMs)
      else
        expect(await failure(verify(resigned, clock))).toEqual({
          code: 'verification_failed',
          reason: 'as_of_in_future',
        })
    })
  })

  // ---------------- RFC-ACDP-0012 transparency log ----------------

  const log001 = () => fixture('log-001')['vectors'][0] as Json
  const logContext = (timestamp: string) => {
    const keypair = fixture('log-001')['registry_test_keypair'] as Json
    return {
      authority: 'registry.example.com',
      capabilitiesRegistryDid: 'did:web:registry.example.com',
      resolveKey: resolverFor({ [keypair['key_id']]: ed25519Key(keypair['public_key_hex']) }),
      now: new Date(timestamp),
    }
  }

  describe('log-001 leaves, root, checkpoint, inclusion proof (RFC-ACDP-0012 §4–§6, §9.1)', () => {
    const fx = fixture('log-001')
    const keypair = fx['registry_test_keypair'] as Json
    const vector = log001()
    const expected = vector['expected'] as Json
    const leaves = vector['leaves'] as Json[]

    it('reproduces every leaf encoding and leaf hash', () => {
      leaves.forEach((leaf, i) => {
        expect(new TextDecoder().decode(encodeLogLeaf(leaf as never))).toBe(expected['leaf_canonical_forms'][i])
        expect(formatSha256(computeLogLeafHash(leaf as never))).toBe(expected['leaf_hashes'][i])
      })
      mark(fx, leaves.length)
    })

    it('reproduces the root from leaf hashes, from stored nodes, and the empty-tree root', () => {
      const hashes = (expected['leaf_hashes'] as string[]).map(parseSha256)
      expect(formatSha256(computeMerkleRoot(hashes))).toBe(expected['root_hash'])
      const tree = new MemoryMerkleTree()
      for (const hash of hashes) tree.appendLeafHash(hash)
      expect(formatSha256(tree.computeRoot())).toBe(expected['root_hash'])
      expect(formatSha256(computeEmptyTreeHash())).toBe(expected['empty_tree_root_hash'])
      expect(formatSha256(new MemoryMerkleTree().computeRoot())).toBe(expected['empty_tree_root_hash'])
      mark(fx)
    })

    it('reproduces the checkpoint bytes, hash and signature, and verifies it (§6, §9.3)', async () => {
      const unsigned = vector['checkpoint_unsigned'] as Json
      expect(canonicalize(unsigned)).toBe(expected['checkpoint_canonical_form'])
      expect(computeCheckpointHash(unsigned as never)).toBe(expected['checkpoint_hash'])
      expect(expected['signature_input']).toBe(expected['checkpoint_hash'])
      const rebuilt = buildCheckpoint({
        logId: vector['log_id'],
        treeSize: unsigned['tree_size'],
        rootHash: parseSha256(expected['root_hash']),
        timestamp: new Date(unsigned['timestamp']),
      })
      expect(rebuilt).toEqual(unsigned)
      const checkpoint = signCheckpoint(rebuilt, signingKey(keypair['private_seed_hex'], keypair['key_id']))
      expect(hex(decodeBase64Strict(checkpoint.signature.value))).toBe(expected['signature_value_hex'])
      expect(checkpoint.signature.value).toBe(expected['signature_value_base64'])
      expect(checkpoint).toEqual(expected['log_checkpoint'])
      const verified = await verifyCheckpoint(expected['log_checkpoint'], logContext(unsigned['timestamp']))
      expect(verified.checkpointHash).toBe(expected['checkpoint_hash'])
      mark(fx)
    })

    it('reproduces PATH(0, D[5]) from stored nodes and verifies it by §9.1 folding', async () => {
      const hashes = (expected['leaf_hashes'] as string[]).map(parseSha256)
      const tree = new MemoryMerkleTree()
      for (const hash of hashes) tree.appendLeafHash(hash)
      const inclusion = expected['log_inclusion'] as Json
      expect(tree.proveInclusion(inclusion['leaf_index'], inclusion['tree_size']).map(formatSha256)).toEqual(
        inclusion['inclusion_path'],
      )
      await verifyLogInclusion(
        { ...inclusion, log_checkpoint: expected['log_checkpoint'] },
        computeLogLeafHash(leaves[inclusion['leaf_index']] as never),
        logContext(expected['log_checkpoint'].timestamp),
      )
      // Every other leaf of the golden tree proves too.
      for (let i = 0; i < hashes.length; i++) {
        verifyInclusionProof({
          leafHash: hashes[i] as Uint8Array,
          leafIndex: i,
          treeSize: hashes.length,
          inclusionPath: tree.proveInclusion(i),
          rootHash: parseSha256(expected['root_hash']),
        })
      }
      mark(fx)
    })

    it('cross-checks: leaf 0 is rebuilt from the rcpt-001 receipt; fingerprints, lineages and versions', () => {
      const receipt = fixture('rcpt-001')['vectors'][0].expected.registry_receipt as RegistryReceipt
      expect(buildLogLeaf(receipt)).toEqual(leaves[0])
      // The registry's publish path encodes the leaf from the receipt it minted and the hash it signed.
      expect(encodeMintedLogLeaf({ receipt, receiptHash: computeReceiptHash(receipt) })).toEqual(
        encodeLogLeaf(leaves[0] as never),
      )
      const fingerprint = computeKeyFingerprint(ed25519Key(fx['producer_key'].public_key_hex))
      for (const leaf of leaves) {
        expect(leaf['key_fingerprint']).toBe(fingerprint)
        expect(leaf['lineage_id']).toBe(deriveLineageId(leaf['ctx_id']))
        expect(leaf['leaf_version']).toBe('acdp-log-leaf/1')
      }
      expect(vector['checkpoint_unsigned'].checkpoint_version).toBe('acdp-log/1')
      mark(fx)
    })
  })

  describe('log-002 tampered inclusion path (RFC-ACDP-0012 §9.1 step 6)', () => {
    const fx = fixture('log-002')
    const input = fx['input'] as Json

    it('the checkpoint verifies, the fold does not', async () => {
      const inclusion = input['log_inclusion'] as Json
      const context = logContext(inclusion['log_checkpoint'].timestamp)
      await verifyCheckpoint(inclusion['log_checkpoint'], context)
      const leafHash = parseSha256(input['leaf_hash'])
      expect(await failure(verifyLogInclusion(inclusion, leafHash, context))).toEqual({
        code: 'verification_failed',
        reason: 'root_mismatch',
      })
      const repaired = { ...inclusion, inclusion_path: [...inclusion['inclusion_path']] }
      repaired.inclusion_path[1] = input['untampered_path_element_1']
      await verifyLogInclusion(repaired, leafHash, context)
      expect(fx['expected'].failure_category).toBe('invalid_log_proof')
      mark(fx)
    })

    it('a proof bound to another tree size or log than its checkpoint is refused', async () => {
      const inclusion = input['log_inclusion'] as Json
      const context = logContext(inclusion['log_checkpoint'].timestamp)
      const leafHash = parseSha256(input['leaf_hash'])
      expect((await failure(verifyLogInclusion({ ...inclusion, tree_size: 6 }, leafHash, context))).reason).toBe(
        'tree_size_mismatch',
      )
      expect(
        (await failure(verifyLogInclusion({ ...inclusion, log_id: `${inclusion['log_id']}x` }, leafHash, context)))
          .reason,
      ).toBe('log_id_mismatch')
    })
  })

  describe('log-003 consistency proof 3 → 5 (RFC-ACDP-0012 §9.2)', () => {
    const fx = fixture('log-003')
    const keypair = fx['registry_test_keypair'] as Json
    const key = signingKey(keypair['private_seed_hex'], keypair['key_id'])
    const vector = fx['vectors'][0] as Json
    const expected = vector['expected'] as Json
    const hashes = (vector['leaf_hashes'] as string[]).map(parseSha256)
    const response = expected['consistency_proof_response'] as Json
    const signed = (which: 'first' | 'second'): LogCheckpoint =>
      signCheckpoint(vector[`${which}_checkpoint_unsigned`], key)

    it('reproduces both roots, both signed checkpoints and the proof', () => {
      expect(formatSha256(computeMerkleRoot(hashes.slice(0, 3)))).toBe(expected['first_root_hash'])
      expect(formatSha256(computeMerkleRoot(hashes))).toBe(expected['second_root_hash'])
      for (const which of ['first', 'second'] as const) {
        const unsigned = vector[`${which}_checkpoint_unsigned`]
        expect(canonicalize(unsigned)).toBe(expected[`${which}_checkpoint_canonical_form`])
        expect(computeCheckpointHash(unsigned)).toBe(expected[`${which}_checkpoint_hash`])
        expect(signed(which).signature.value).toBe(expected[`${which}_signature_value_base64`])
      }
      const tree = new MemoryMerkleTree()
      for (const hash of hashes) tree.appendLeafHash(hash)
      expect(
        tree.proveConsistency(response['first_tree_size'], response['second_tree_size']).map(formatSha256),
      ).toEqual(response['consistency_path'])
      mark(fx)
    })

    it('verifies end to end against the retained size-3 checkpoint', async () => {
      const context = logContext(vector['second_checkpoint_unsigned'].timestamp)
      const retained = await verifyCheckpoint(signed('first'), context)
      const next = await verifyLogConsistency(
        { ...response, log_checkpoint: signed('second') },
        retained.checkpoint,
        context,
      )
      expect(next.checkpoint.tree_size).toBe(response['second_tree_size'])
      mark(fx)
    })

    const path = response['consistency_path'] as string[]
    const flip = (value: string) =>
      `sha256:${(Number.parseInt(value[7] as string, 16) ^ 1).toString(16)}${value.slice(8)}`
    const tamperings = [
      ...path.map((_, i) => ({
        name: `path element ${i} tampered`,
        patch: (r: Json) => ({ ...r, consistency_path: path.map((p, j) => (i === j ? flip(p) : p)) }),
        retained: {},
      })),
      { name: 'path element dropped', patch: (r: Json) => ({ ...r, consistency_path: path.slice(1) }), retained: {} },
      {
        name: 'retained root rewritten',
        patch: (r: Json) => r,
        retained: { root_hash: flip(expected['first_root_hash']) },
      },
      { name: 'first size misstated', patch: (r: Json) => ({ ...r, first_tree_size: 2 }), retained: { tree_size: 2 } },
    ]
    it.each(tamperings)('$name → fails', async ({ patch, retained }) => {
      const context = logContext(vector['second_checkpoint_unsigned'].timestamp)
      const first = { ...vector['first_checkpoint_unsigned'], ...retained }
      const result = await failure(
        verifyLogConsistency(patch({ ...response, log_checkpoint: signed('second') }), first, context),
      )
      expect(result.code).toBe('verification_failed')
    })
  })

  describe('log-004 checkpoint root altered after signing (RFC-ACDP-0012 §9.3 step 2)', () => {
    const fx = fixture('log-004')
    const input = fx['input'] as Json

    it('recomputes a different checkpoint hash and refuses the signature', async () => {
      const checkpoint = input['log_checkpoint'] as LogCheckpoint
      expect(computeCheckpointHash(checkpoint)).not.toBe(input['genuine_checkpoint_hash'])
      expect(computeCheckpointHash({ ...checkpoint, root_hash: input['genuine_root_hash_the_signature_covers'] })).toBe(
        input['genuine_checkpoint_hash'],
      )
      const context = {
        ...logContext(checkpoint.timestamp),
        resolveKey: resolverFor({ [checkpoint.signature.key_id]: ed25519Key(input['registry_public_key_hex']) }),
      }
      expect(await failure(verifyCheckpoint(checkpoint, context))).toEqual({
        code: 'verification_failed',
        reason: 'signature_invalid',
      })
      await verifyCheckpoint({ ...checkpoint, root_hash: input['genuine_root_hash_the_signature_covers'] }, context)
      mark(fx)
    })

    it.each([
      {
        name: 'served from another authority',
        patch: { authority: 'hostile.example' },
        reason: 'registry_did_mismatch',
      },
      {
        name: 'timestamp beyond the skew allowance',
        patch: { now: new Date('2026-07-04T11:57:59.999Z') },
        reason: 'timestamp_in_future',
      },
    ])('a genuine checkpoint $name → $reason', async ({ patch, reason }) => {
      const checkpoint = log001()['expected'].log_checkpoint
      const context = { ...logContext(checkpoint.timestamp), ...patch }
      expect(await failure(verifyCheckpoint(checkpoint, context))).toEqual({ code: 'verification_failed', reason })
    })
  })

  // ---------------- RFC-ACDP-0015 witness cosignatures ----------------

  const goldenCheckpoint = () => fixture('log-001')['vectors'][0].expected.log_checkpoint as LogCheckpoint
  const cosignatureContext = (keys: Record<string, PublicKeyMaterial>, now: string) => ({
    checkpoint: goldenCheckpoint(),
    resolveKey: resolverFor(keys),
    isTrustedWitness: () => true,
    now: new Date(now),
  })

  describe('wit-001 cosignature golden (RFC-ACDP-0015 §4–§5, §8)', () => {
    const fx = fixture('wit-001')
    const keypair = fx['witness_test_keypair'] as Json

    it.each(fx['vectors'] as Json[])('$name', async (vector) => {
      const unsigned = vector['cosignature_unsigned'] as Json
      const expected = vector['expected'] as Json
      expect(hex(ed25519PublicKeyFromSeed(fromHex(keypair['private_seed_hex'])))).toBe(keypair['public_key_hex'])
      expect(canonicalize(unsigned)).toBe(expected['canonical_form'])
      expect(computeCosignatureHash(unsigned as never)).toBe(expected['cosignature_hash'])
      expect(expected['signature_input']).toBe(expected['cosignature_hash'])

      expect(fx['chains_to_log_fixture']).toBe(fixture('log-001').file)
      const cosignature = cosignCheckpoint({
        checkpoint: goldenCheckpoint(),
        witnessId: unsigned['witness_id'],
        witnessedAt: new Date(unsigned['witnessed_at']),
        key: signingKey(keypair['private_seed_hex'], keypair['key_id']),
      })
      expect(hex(decodeBase64Strict(cosignature.signature.value))).toBe(expected['signature_value_hex'])
      expect(cosignature.signature.value).toBe(expected['signature_value_base64'])
      expect(cosignature).toEqual(expected['log_cosignature'])

      const context = cosignatureContext(
        { [keypair['key_id']]: ed25519Key(keypair['public_key_hex']) },
        unsigned['witnessed_at'],
      )
      const verified = await verifyCosignature(expected['log_cosignature'], context)
      expect(verified.cosignatureHash).toBe(expected['cosignature_hash'])
      const quorum = await countWitnesses([expected['log_cosignature']], context)
      expect(quorum.count).toBe(fx['expected_quorum'].witnessed_count)
      expect(goldenCheckpoint()).toMatchObject(withoutCount(fx['expected_quorum']))
      mark(fx)
    })

    it.each([
      { name: 'untrusted witness', patch: { isTrustedWitness: () => false }, reason: 'witness_not_trusted' },
      {
        name: 'cosignature over another root',
        patch: { checkpoint: { ...goldenCheckpoint(), root_hash: `sha256:${'0'.repeat(64)}` } },
        reason: 'checkpoint_mismatch',
      },
      {
        name: 'witnessed_at beyond the skew allowance',
        patch: { now: new Date('2026-07-04T11:58:04.999Z') },
        reason: 'witnessed_at_in_future',
      },
    ])('$name → $reason', async ({ patch, reason }) => {
      const cosignature = fx['vectors'][0].expected.log_cosignature
      const context = {
        ...cosignatureContext({ [keypair['key_id']]: ed25519Key(keypair['public_key_hex']) }, cosignature.witnessed_at),
        ...patch,
      }
      expect(await failure(verifyCosignature(cosignature, context))).toEqual({ code: 'verification_failed', reason })
    })
  })

  describe('wit-002 consistency refusal (RFC-ACDP-0015 §7 step 2)', () => {
    const fx = fixture('wit-002')
    const scenario = fx['scenario'] as Json
    const expected = fx['expected'] as Json
    const genuinePath = (
      fixture('log-003')['vectors'][0].expected.consistency_proof_response.consistency_path as string[]
    ).map(parseSha256)

    it('refuses to cosign a rewritten root and returns the evidence to persist', () => {
      const decision = decideCosignature({
        retainedHead: withoutNote(scenario['retained_head']) as never,
        presented: withoutNote(scenario['presented_checkpoint']) as never,
        consistencyPath: genuinePath,
      })
      expect(decision.action).toBe(expected['witness_action'])
      expect(decision.action === 'cosign').toBe(expected['cosignature_emitted'])
      if (decision.action !== 'refuse') throw new Error('expected a refusal')
      expect(decision.reason).toBe(expected['reason'])
      expect(decision.evidence !== undefined).toBe(expected['evidence_persisted'])
      expect(decision.evidence.retained_head.root_hash).toBe(scenario['retained_head'].root_hash)
      expect(decision.evidence.presented_checkpoint.root_hash).toBe(scenario['presented_checkpoint'].root_hash)
      expect(decision.evidence.consistency_path).toEqual(genuinePath.map(formatSha256))
      expect(decision.evidence.failure['reason']).toBe('second_root_mismatch')
      mark(fx)
    })

    it('cosigns the genuine size-5 checkpoint, and anchors on a first observation', () => {
      const retainedHead = withoutNote(scenario['retained_head']) as never
      const genuine = {
        ...withoutNote(scenario['presented_checkpoint']),
        root_hash: goldenCheckpoint().root_hash,
      } as never
      expect(decideCosignature({ retainedHead, presented: genuine, consistencyPath: genuinePath })).toEqual({
        action: 'cosign',
        reason: 'consistent_with_retained_head',
      })
      expect(decideCosignature({ presented: genuine, consistencyPath: [] })).toEqual({
        action: 'cosign',
        reason: 'first_observation',
      })
    })
  })

  describe('wit-003 two distinct witnesses (RFC-ACDP-0015 §8)', () => {
    const fx = fixture('wit-003')
    const keypairs = fx['witness_test_keypairs'] as Json[]
    const vectorsOf = fx['vectors'] as Json[]
    const keyIdOf = (witnessId: string) => `${witnessId}#witness-key-1`

    it.each(vectorsOf)('$name: preimage, hash and signature', (vector) => {
      const unsigned = vector['cosignature_unsigned'] as Json
      const expected = vector['expected'] as Json
      const keypair = vector['witness_test_keypair'] as Json
      expect(hex(ed25519PublicKeyFromSeed(fromHex(keypair['private_seed_hex'])))).toBe(keypair['public_key_hex'])
      expect(canonicalize(unsigned)).toBe(expected['canonical_form'])
      expect(computeCosignatureHash(unsigned as never)).toBe(expected['cosignature_hash'])
      expect(expected['signature_input']).toBe(expected['cosignature_hash'])
      const signature = signReceiptHash(
        expected['cosignature_hash'],
        signingKey(keypair['private_seed_hex'], keyIdOf(unsigned['witness_id'])),
      )
      expect(hex(decodeBase64Strict(signature.value))).toBe(expected['signature_value_hex'])
      expect(signature.value).toBe(expected['signature_value_base64'])
      mark(fx)
    })

    it('counts distinct witness DIDs over the one checkpoint tuple', async () => {
      const cosignatures = vectorsOf.map((vector) => ({
        ...vector['cosignature_unsigned'],
        signature: {
          algorithm: 'ed25519',
          key_id: keyIdOf(vector['cosignature_unsigned'].witness_id),
          value: vector['expected'].signature_value_base64,
        },
      }))
      const keys = Object.fromEntries(keypairs.map((k) => [keyIdOf(k['witness_id']), ed25519Key(k['public_key_hex'])]))
      const latest = cosignatures
        .map((c) => c.witnessed_at)
        .sort()
        .at(-1) as string
      // The same witness twice still counts once.
      const quorum = await countWitnesses([...cosignatures, cosignatures[0]], cosignatureContext(keys, latest))
      expect(quorum.count).toBe(fx['expected_quorum'].witnessed_count)
      expect(quorum.witnessIds).toEqual(keypairs.map((k) => k['witness_id']))
      expect(quorum.failures).toEqual([])
      expect(goldenCheckpoint()).toMatchObject(withoutCount(fx['expected_quorum']))
      mark(fx)
    })
  })

  describe('wit-004 cosignature by the wrong witness key (RFC-ACDP-0015 §8 step 2)', () => {
    const fx = fixture('wit-004')
    const cosignature = fx['cosignature'] as Json
    const document = fx['witness_did_document'] as Json

    it('does not verify under the resolved witness key and does not count', async () => {
      expect(computeCosignatureHash(cosignature as never)).toBe(fx['expected'].cosignature_hash)
      // The value is a genuine signature — by the other witness's key.
      verifyReceiptSignature(
        fx['expected'].cosignature_hash,
        cosignature['signature'],
        ed25519Key(fx['wrong_signer_key_public_hex']),
      )
      const context = cosignatureContext(
        { [cosignature['signature'].key_id]: ed25519Key(document['assertion_method_key_public_hex']) },
        cosignature['witnessed_at'],
      )
      expect(await failure(verifyCosignature(cosignature, context))).toEqual({
        code: 'verification_failed',
        reason: 'signature_invalid',
      })
      const quorum = await countWitnesses([cosignature], context)
      expect(quorum.count).toBe(0)
      expect(quorum.failures.map((f) => (f.error as ProtocolError).details?.['reason'])).toEqual(['signature_invalid'])
      expect(fx['expected'].error_code).toBe('invalid_witness_cosignature')
      mark(fx)
    })
  })

  // ---------------- RFC-ACDP-0014 key revocation, RFC-ACDP-0010 §10 rotation ----------------

  describe('rev-001 revocation context golden (RFC-ACDP-0014 §4–§5)', () => {
    const fx = fixture('rev-001')
    const testKey = fx['test_keypair'] as Json
    const revoked = fx['revoked_key'] as Json
    const k2 = ed25519Key(testKey['public_key_hex'])
    const k1 = ed25519Key(revoked['public_key_hex'])

    it.each(fx['vectors'] as Json[])('$name: canonical form, content_hash, signature, §4–§5 checks', (vector) => {
      const expected = vector['expected'] as Json
      const body = expected['publish_request_body'] as Json
      expect(extractProducerContent(body)).toEqual(vector['producer_content'])
      expect(canonicalize(vector['producer_content'])).toBe(expected['canonical_form'])
      expect(computeContentHash(body)).toBe(expected['content_hash'])
      expect(expected['signature_input']).toBe(expected['content_hash'])
      const value = signContentHash({
        algorithm: 'ed25519',
        privateKey: fromHex(testKey['private_seed_hex']),
        contentHash: expected['content_hash'],
      })
      expect(value).toBe(expected['signature_value_base64'])
      expect(hex(decodeBase64Strict(value))).toBe(expected['signature_value_hex'])
      expect(
        verifyContentSignature({
          algorithm: 'ed25519',
          publicKey: k2.publicKey,
          contentHash: expected['content_hash'],
          signature: value,
        }),
      ).toBe(true)
      expect(hex(ed25519PublicKeyFromSeed(fromHex(testKey['private_seed_hex'])))).toBe(testKey['public_key_hex'])

      expect(computeKeyFingerprint(k2)).toBe(testKey['key_fingerprint'])
      expect(computeKeyFingerprint(k1)).toBe(revoked['key_fingerprint'])
      const revocation = parseKeyRevocation(body, { registryDid: 'did:web:registry.example.com' })
      expect(revocation).toMatchObject({
        revokedKeyFingerprint: revoked['key_fingerprint'],
        compromisedSince: body['metadata'].compromised_since,
        controller: body['agent_id'],
        trustClass: 'producer-signed',
      })
      assertRevocationNotSelfSigned(revocation, k2)
      expect(() => assertRevocationNotSelfSigned(revocation, k1)).toThrow(
        expect.objectContaining({ code: 'verification_failed', details: { reason: 'revocation_self_signed' } }),
      )
      expect(deriveLineageId(vector['registry_assigned'].ctx_id)).toBe(vector['registry_assigned'].lineage_id)
      // The revoked key is the one rcpt-001 attests.
      expect(revoked['key_fingerprint']).toBe(fixture('rcpt-001')['vectors'][0].receipt_unsigned.key_fingerprint)
      mark(fx)
    })

    const body = () => fx['vectors'][0].expected.publish_request_body as Json
    const withMetadata = (patch: Json) => ({ ...body(), metadata: { ...body()['metadata'], ...patch } })
    it.each([
      {
        name: 'restricted visibility',
        make: () => ({ ...body(), visibility: 'restricted' }),
        reason: 'visibility_not_public',
      },
      { name: 'another type', make: () => ({ ...body(), type: 'analysis' }), reason: 'not_key_revocation' },
      {
        name: 'missing fingerprint',
        make: () => withMetadata({ revoked_key_fingerprint: undefined }),
        reason: 'revoked_key_fingerprint_invalid',
      },
      {
        name: 'uppercase fingerprint',
        make: () => withMetadata({ revoked_key_fingerprint: body()['metadata'].revoked_key_fingerprint.toUpperCase() }),
        reason: 'revoked_key_fingerprint_invalid',
      },
      {
        name: 'second-precision boundary',
        make: () => withMetadata({ compromised_since: '2026-05-01T00:00:00Z' }),
        reason: 'compromised_since_invalid',
      },
      {
        name: 'impossible date',
        make: () => withMetadata({ compromised_since: '2026-02-30T00:00:00.000Z' }),
        reason: 'compromised_since_invalid',
      },
      {
        name: 'controller other than agent_id',
        make: () => withMetadata({ revoked_key_controller: 'did:web:other.example' }),
        reason: 'revoked_key_controller_mismatch',
      },
      { name: 'overlong reason', make: () => withMetadata({ reason: 'x'.repeat(1025) }), reason: 'reason_invalid' },
    ])('a revocation with $name is refused ($reason)', ({ make, reason }) => {
      expect(() => parseKeyRevocation(make())).toThrow(
        expect.objectContaining({ code: 'invalid_structure', details: { reason } }),
      )
    })
  })

  describe('rev-002 before/after the compromise boundary (RFC-ACDP-0014 §7)', () => {
    const fx = fixture('rev-002')
    const scenarios = fx['scenarios'] as Json[]
    const revocationBody = fixture('rev-001')['vectors'][0].expected.publish_request_body as Json
    const revocation = parseKeyRevocation(revocationBody)
    const rcpt = fixture('rcpt-001')
    const receipt = rcpt['vectors'][0].expected.registry_receipt as RegistryReceipt

    it('A — a verified receipt dated before T is historically authorized (pre-compromise)', async () => {
      const verified = await verifyRegistryReceipt({
        receipt,
        authority: hostOf(receipt.registry_did),
        resolveKey: resolverFor({
          [receipt.signature.key_id]: ed25519Key(rcpt['registry_test_keypair'].public_key_hex),
        }),
        context: receipt,
        contentHash: receipt.content_hash,
        producerKey: ed25519Key(rcpt['producer_key'].public_key_hex),
      })
      expect(verified.receipt.key_fingerprint).toBe(revocation.revokedKeyFingerprint)
      const verdict = evaluateCompromiseBoundary({
        compromisedSince: revocation.compromisedSince,
        receiptCreatedAt: verified.receipt.created_at,
      })
      const expected = scenarios[0]?.expected as Json
      expect(verdict.outcome === 'historically_authorized' ? 'success' : 'failure').toBe(expected['outcome'])
      expect(verdict).toEqual({ outcome: 'historically_authorized', status: expected['verification_status'] })
      mark(fx)
    })

    it('B — a verified receipt dated at or after T fails closed', () => {
      const expected = scenarios[1]?.expected as Json
      const createdAt = /created_at = (\S+Z)/.exec(expected['behavior'])?.[1] as string
      for (const at of [createdAt, revocation.compromisedSince]) {
        const verdict = evaluateCompromiseBoundary({
          compromisedSince: revocation.compromisedSince,
          receiptCreatedAt: at,
        })
        expect(verdict).toEqual({ outcome: 'fail_closed', reason: 'at_or_after_compromise' })
      }
      expect(expected['outcome']).toBe('failure')
      const justBefore = new Date(Date.parse(revocation.compromisedSince) - 1).toISOString()
      expect(
        evaluateCompromiseBoundary({ compromisedSince: revocation.compromisedSince, receiptCreatedAt: justBefore })
          .outcome,
      ).toBe('historically_authorized')
      mark(fx)
    })

    it('C — without a verified receipt the publish time is unverifiable: fail closed', () => {
      expect(
        evaluateCompromiseBoundary({ compromisedSince: revocation.compromisedSince, receiptCreatedAt: undefined }),
      ).toEqual({
        outcome: 'fail_closed',
        reason: 'publish_time_unverifiable',
      })
      expect(scenarios[2]?.expected.outcome).toBe('failure')
      mark(fx)
    })

    it('D — registry-attested and self-signed revocations are classified apart', () => {
      const registryDid = 'did:web:registry.example.com'
      const attested = parseKeyRevocation(
        {
          ...revocationBody,
          agent_id: registryDid,
          metadata: { ...revocationBody['metadata'], revoked_key_controller: revocationBody['agent_id'] },
        },
        { registryDid },
      )
      expect(attested.trustClass).toBe('registry-attested')
      expect(attested.controller).toBe(revocationBody['agent_id'])
      expect(() => parseKeyRevocation({ ...revocationBody, agent_id: registryDid }, { registryDid })).toThrow(
        expect.objectContaining({ details: { reason: 'revoked_key_controller_missing' } }),
      )
      expect(() =>
        assertRevocationNotSelfSigned(revocation, ed25519Key(fixture('rev-001')['revoked_key'].public_key_hex)),
      ).toThrow(expect.objectContaining({ details: { reason: 'revocation_self_signed' } }))
      // Earliest T across a revocation lineage wins: a supersession never shrinks the window.
      expect(selectEffectiveCompromisedSince(['2026-06-01T00:00:00.000Z', revocation.compromisedSince])).toBe(
        revocation.compromisedSince,
      )
      expect(scenarios[3]?.expected.outcome).toBe('success')
      mark(fx)
    })
  })

  describe('rot-001 historical producer key with receipt (RFC-ACDP-0010 §10)', () => {
    const fx = fixture('rot-001')
    const document = fx['input'].producer_did_document as Json
    const [k1Method, k2Method] = document['verificationMethod'] as Json[]
    const rcpt = fixture('rcpt-001')
    const receipt = rcpt['vectors'][0].expected.registry_receipt as RegistryReceipt
    const verifyWith = (producerKey: PublicKeyMaterial) =>
      verifyRegistryReceipt({
        receipt,
        authority: hostOf(receipt.registry_did),
        resolveKey: resolverFor({
          [receipt.signature.key_id]: ed25519Key(rcpt['registry_test_keypair'].public_key_hex),
        }),
        context: receipt,
        contentHash: receipt.content_hash,
        producerKey,
      })

    it('A — the receipt attests K1, retained in verificationMethod only', async () => {
      const k1 = decodeMultibaseKey(k1Method?.['publicKeyMultibase'])
      expect(computeKeyFingerprint(k1)).toBe(receipt.key_fingerprint)
      await verifyWith(k1)
      expect(fx['scenarios'][0].expected.outcome).toBe('success')
      mark(fx)
    })

    it('B — K1 is not authorized for new signatures by the current document (strict: fail closed without a receipt)', () => {
      expect(() => parseDidDocument(document, document['id'], k1Method?.['id'])).toThrow(
        expect.objectContaining({ details: expect.objectContaining({ reason: 'not_in_assertion_method' }) }),
      )
      const k2 = parseDidDocument(document, document['id'], k2Method?.['id'])
      expect(computeKeyFingerprint(k2)).toBe(fixture('rev-001')['test_keypair'].key_fingerprint)
      expect(fx['scenarios'][1].expected.outcome).toBe('failure')
      mark(fx)
    })

    it('C — the receipt cannot vouch for a key it does not name', async () => {
      const k2 = decodeMultibaseKey(k2Method?.['publicKeyMultibase'])
      expect(await failure(verifyWith(k2))).toEqual({ code: 'verification_failed', reason: 'key_fingerprint_mismatch' })
      const withoutK1 = { ...document, verificationMethod: [k2Method] }
      expect(() => parseDidDocument(withoutK1, document['id'], k1Method?.['id'])).toThrow(
        expect.objectContaining({ details: expect.objectContaining({ reason: 'verification_method_not_found' }) }),
      )
      expect(fx['scenarios'][2].expected.outcome).toBe('failure')
      mark(fx)
    })
  })

  // ---------------- RFC-ACDP-0013 lifecycle arithmetic ----------------

  describe('lc-001 retraction flow arithmetic (RFC-ACDP-0013 §5, §7)', () => {
    const fx = fixture('lc-001')
    const request = fx['input'].retract_request.body.event as Json
    const producerKey = fixture('rev-001')['test_keypair'] as Json
    // The fixture's signature is a placeholder: sign with the producer's current key (rot-001 K2) instead.
    const keyId = `${request['actor']}#key-2`
    const key = signingKey(producerKey['private_seed_hex'], keyId)
    const resolveKey = resolverFor({ [keyId]: ed25519Key(producerKey['public_key_hex']) })
    const { signature: _placeholder, ...unsigned } = request

    it('A — a signed, ctx_id-bound retraction validates and verifies; status becomes retracted', async () => {
      const event = signLifecycleEvent(unsigned as never, key)
      validateLifecycleEvent(event, { ctxId: request['ctx_id'], now: new Date(request['occurred_at']) })
      const eventHash = await verifyLifecycleEventSignature(event, resolveKey)
      expect(eventHash).toBe(computeReceiptHash(unsigned))
      expect(isLifecycleTransitionAllowed([], 'retracted')).toBe(true)
      expect(
        deriveContextStatus({ lifecycleEvents: [event], isSuperseded: false, now: new Date(request['occurred_at']) }),
      ).toBe('retracted')
      expect(fx['scenarios'][0].expected.http_status).toBe(200)
      mark(fx)
    })

    it('C — a second retraction is an invalid transition; F — republication re-derives the status', () => {
      const retraction = signLifecycleEvent(unsigned as never, key)
      expect(isLifecycleTransitionAllowed([retraction], 'retracted')).toBe(false)
      expect(fx['scenarios'][2].expected.error_code).toBe('invalid_lifecycle_transition')
      const republication = signLifecycleEvent(
        { ...unsigned, event_id: '018f6d0a-7b2e-4c4d-9e1f-3a5b7c9d1e30', event_type: 'republished' } as never,
        key,
      )
      expect(isLifecycleTransitionAllowed([retraction], 'republished')).toBe(true)
      const history = [retraction, republication]
      expect(isRetracted(history)).toBe(false)
      expect(
        deriveContextStatus({ lifecycleEvents: history, isSuperseded: false, now: new Date(request['occurred_at']) }),
      ).toBe('active')
      expect(isLifecycleTransitionAllowed(history, 'republished')).toBe(false)
      mark(fx)
    })

    it('tampering with any signed member breaks the event signature', async () => {
      const event = signLifecycleEvent(unsigned as never, key)
      const result = await failure(verifyLifecycleEventSignature({ ...event, reason: 'edited later' }, resolveKey))
      expect(result).toEqual({ code: 'verification_failed', reason: 'signature_invalid' })
    })

    it.each([
      {
        name: 'retracted dominates superseded and expired',
        facts: { retracted: true, isSuperseded: true, expiresAt: '2000-01-01T00:00:00.000Z' },
        status: 'retracted',
      },
      {
        name: 'superseded dominates expired',
        facts: { retracted: false, isSuperseded: true, expiresAt: '2000-01-01T00:00:00.000Z' },
        status: 'superseded',
      },
      {
        name: 'expired when past expires_at',
        facts: { retracted: false, isSuperseded: false, expiresAt: '2000-01-01T00:00:00.000Z' },
        status: 'expired',
      },
      {
        name: 'active at exactly expires_at',
        facts: { retracted: false, isSuperseded: false, expiresAt: '2030-01-01T00:00:00.000Z' },
        status: 'active',
      },
    ])('status precedence (§7.2): $name', ({ facts, status }) => {
      const lifecycleEvents = facts.retracted ? [{ event_type: 'retracted' }] : [{ event_type: 'future_kind' }]
      const now = new Date('2030-01-01T00:00:00.000Z')
      expect(
        deriveContextStatus({ lifecycleEvents, isSuperseded: facts.isSuperseded, expiresAt: facts.expiresAt, now }),
      ).toBe(status)
    })
  })

  describe('lc-002 unsigned producer event (RFC-ACDP-0013 §5)', () => {
    const fx = fixture('lc-002')
    const scenario = (fx['scenarios'] as Json[]).find(
      (s) => s['request']?.body?.event && !s['request'].body.event.signature,
    ) as Json

    it('D — an unsigned producer event is refused at validation (schema_violation on the wire)', () => {
      const event = scenario['request'].body.event as Json
      expect(() =>
        validateLifecycleEvent(event, { ctxId: event['ctx_id'], now: new Date(event['occurred_at']) }),
      ).toThrow(expect.objectContaining({ code: 'invalid_structure', details: { reason: 'signature_missing' } }))
      expect(scenario['expected'].error_code).toBe('schema_violation')
      descriptive.push('lc-002 A–C: envelope immutable_field and actor ≠ agent_id are registry endpoint behaviour')
      mark(fx)
    })

    it.each([
      {
        name: 'ctx_id of another context',
        patch: { ctx_id: 'acdp://registry.example.com/00000000-0000-4000-8000-000000000009' },
        reason: 'ctx_id_mismatch',
      },
      {
        name: 'occurred_at beyond the skew',
        patch: { occurred_at: '2026-07-04T09:25:00.001Z' },
        reason: 'occurred_at_in_future',
      },
      { name: 'unknown member', patch: { note: 'x' }, reason: 'schema_violation' },
    ])('a lifecycle event with $name is refused ($reason)', ({ patch, reason }) => {
      const event = {
        ...(scenario['request'].body.event as Json),
        signature: {
          algorithm: 'ed25519',
          key_id: 'did:web:agents.example.com:test-producer#key-1',
          value: 'A'.repeat(86) + '==',
        },
        ...patch,
      }
      const ctxId = scenario['request'].body.event.ctx_id
      expect(() => validateLifecycleEvent(event, { ctxId, now: new Date('2026-07-04T09:23:00.000Z') })).toThrow(
        expect.objectContaining({ code: 'invalid_structure', details: expect.objectContaining({ reason }) }),
      )
    })
  })

  describe('lc-003 retracted heads and head receipts (RFC-ACDP-0013 §8.3)', () => {
    const fx = fixture('lc-003')
    const keypair = fixture('lhr-001')['registry_test_keypair'] as Json
    const key = signingKey(keypair['private_seed_hex'], keypair['key_id'])
    const golden = lhrGolden()
    const { signature: _signature, ...unsigned } = golden
    const v3 = 'acdp://registry.example.com/00000000-0000-4000-8000-000000000003'
    const v2 = 'acdp://registry.example.com/00000000-0000-4000-8000-000000000002'

    it('D — a head receipt can never name a retracted head', () => {
      expect(() => signLineageHeadReceipt({ ...unsigned, head_status: 'retracted' } as never, key)).toThrow(
        expect.objectContaining({
          code: 'invalid_structure',
          details: expect.objectContaining({ reason: 'schema_violation' }),
        }),
      )
      mark(fx)
    })

    it.each([
      { status: 'retracted', passes: true },
      { status: 'superseded', passes: true },
      { status: 'active', passes: false },
    ])(
      'D — full retrieval of non-head v2 ($status) beside a receipt naming v3 (§7 step 5b)',
      async ({ status, passes }) => {
        const receipt = signLineageHeadReceipt({ ...unsigned, head_ctx_id: v3, head_version: 3 } as never, key)
        const run = verifyLineageHeadReceipt({
          receipt,
          authority: hostOf(golden['registry_did']),
          resolveKey: registryResolver(),
          lineageId: golden['lineage_id'],
          endpoint: 'context',
          served: { ctx_id: v2, version: 2, status },
          now: new Date(golden['as_of']),
        })
        if (passes) await run
        else expect(await failure(run)).toEqual({ code: 'verification_failed', reason: 'served_status_not_superseded' })
      },
    )
  })

  // ---------------- tally ----------------

  it('ran every trust-layer fixture', () => {
    const expectedIds = ['rcpt-', 'lhr-', 'log-', 'wit-', 'rev-', 'rot-001', 'lc-'].flatMap((prefix) =>
      loadFixtures(prefix).map((f) => f.id),
    )
    expect(expectedIds.length).toBeGreaterThan(0)
    expect([...ran].sort()).toEqual([...new Set(expectedIds)].sort())
    console.info(
      `[conformance-log] ran ${ran.size} fixtures, ${vectors} vectors/scenarios` +
        (descriptive.length ? `; not executable here: ${descriptive.join('; ')}` : ''),
    )
  })
})

function withoutCount(quorum: Json): Json {
  const { witnessed_count: _count, ...tuple } = quorum
  return tuple
}
