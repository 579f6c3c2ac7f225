/**
 * RFC-ACDP-0010 registry receipts: minting (§5, §7) and the consumer verification procedure (§8).
 */
import { ProtocolError } from '../errors.js'
import { computeKeyFingerprint, type PublicKeyMaterial } from '../keys/index.js'
import { assertWireShape, RegistryReceipt } from '../wire/log.js'
import { computeReceiptHash } from './receipt-hash.js'
import {
  type ResolveVerificationKey,
  type SigningKey,
  signReceiptHash,
  signReceiptHashAsync,
  verifyReceiptSignature,
} from './receipt-signature.js'
import { assertRegistryBinding, authorityOfCtxId, didOfKeyId, hostOfRegistryDid } from './registry-binding.js'

/** A receipt before signing: every RFC-ACDP-0010 §4 member except `signature`. */
export type UnsignedRegistryReceipt = Omit<RegistryReceipt, 'signature'>

/**
 * Mints a receipt (RFC-ACDP-0010 §5): hashes the unsigned receipt and signs the receipt-hash string with the
 * registry receipt signing key. Checks the result against the closed schema and the §4 consistency rules
 * (`origin_registry` = `ctx_id` authority = `registry_did` host; `key_id` under `registry_did`) so a
 * registry can never emit a receipt its consumers must reject.
 * Throws ProtocolError `invalid_structure` (`schema_violation`, `origin_registry_mismatch`,
 * `key_id_not_under_registry_did`).
 */
export function signRegistryReceipt(unsigned: UnsignedRegistryReceipt, key: SigningKey): RegistryReceipt {
  return mintRegistryReceipt(unsigned, key).receipt
}

/**
 * {@link signRegistryReceipt} with the Ed25519 signature computed on libuv's thread pool (a registry mints one
 * per publish; this keeps the signing off its event loop). Same receipt, same checks and errors (rejections).
 */
export async function signRegistryReceiptAsync(
  unsigned: UnsignedRegistryReceipt,
  key: SigningKey,
): Promise<RegistryReceipt> {
  return (await mintRegistryReceiptAsync(unsigned, key)).receipt
}

/**
 * A receipt this process minted and checked, with the receipt hash it signed. The log leaf binds that hash
 * (RFC-ACDP-0012 §4), so a registry hands it to `encodeMintedLogLeaf` instead of canonicalizing the receipt
 * a second time. Only the minting functions create one, so `receiptHash` is always the hash of `receipt`.
 */
export interface MintedRegistryReceipt {
  readonly receipt: RegistryReceipt
  readonly receiptHash: string
}

/** {@link signRegistryReceipt}, also returning the receipt hash. Same checks and errors. */
export function mintRegistryReceipt(unsigned: UnsignedRegistryReceipt, key: SigningKey): MintedRegistryReceipt {
  assertReceiptKey(unsigned, key)
  const receiptHash = computeReceiptHash(unsigned)
  return { receipt: checkMinted({ ...unsigned, signature: signReceiptHash(receiptHash, key) }), receiptHash }
}

/** {@link signRegistryReceiptAsync}, also returning the receipt hash. Same checks and errors (rejections). */
export async function mintRegistryReceiptAsync(
  unsigned: UnsignedRegistryReceipt,
  key: SigningKey,
): Promise<MintedRegistryReceipt> {
  assertReceiptKey(unsigned, key)
  const receiptHash = computeReceiptHash(unsigned)
  const signature = await signReceiptHashAsync(receiptHash, key)
  return { receipt: checkMinted({ ...unsigned, signature }), receiptHash }
}

function assertReceiptKey(unsigned: UnsignedRegistryReceipt, key: SigningKey): void {
  if (didOfKeyId(key.keyId) !== unsigned.registry_did) {
    throw new ProtocolError('invalid_structure', 'the signing key is not a DID URL under registry_did', {
      details: { reason: 'key_id_not_under_registry_did' },
    })
  }
}

function checkMinted(receipt: RegistryReceipt): RegistryReceipt {
  assertWireShape(RegistryReceipt, receipt, 'registry_receipt')
  assertOriginConsistency(receipt, 'invalid_structure')
  return receipt
}

/** The registry-assigned fields of the accompanying body or publish response (RFC-ACDP-0010 §8 step 3). */
export interface ReceiptContext {
  readonly ctx_id: string
  readonly lineage_id: string
  readonly origin_registry: string
  readonly created_at: string
}

/** Input of {@link verifyRegistryReceipt}. */
export interface VerifyRegistryReceiptInput {
  /** The `registry_receipt` member as received — attacker-controlled. */
  readonly receipt: unknown
  /** The authority the context or publish response was fetched from (`host` or `host:port`). */
  readonly authority: string
  /** Resolves `signature.key_id` in the registry's DID document (RFC-ACDP-0010 §9 key lifecycle). */
  readonly resolveKey: ResolveVerificationKey
  /** The requested `ctx_id` and the body's `lineage_id`, `origin_registry`, `created_at`. */
  readonly context: ReceiptContext
  /** The consumer's independently recomputed `content_hash` of the body — never the echoed value (§8 step 4). */
  readonly contentHash: string
  /** The producer key resolved for `body.signature.key_id`, or a historically retained key (§8 step 5, §10). */
  readonly producerKey: PublicKeyMaterial
}

/** A receipt that passed every RFC-ACDP-0010 §8 check, with its receipt hash (the log leaf binds it). */
export interface VerifiedRegistryReceipt {
  readonly receipt: RegistryReceipt
  readonly receiptHash: string
}

/**
 * RFC-ACDP-0010 §8: closed parse and timestamp form (step 6), registry binding (step 2, checked before any
 * key is resolved), signature over the recomputed receipt hash (step 1), context binding (step 3), content
 * binding (step 4) and producer-key binding (step 5).
 *
 * Throws ProtocolError `invalid_structure` (`schema_violation`) for a malformed receipt, or
 * `verification_failed` with `details.reason`: the registry-binding reasons of `assertRegistryBinding`,
 * `origin_registry_mismatch`, the signature reasons of `verifyReceiptSignature`, `ctx_id_mismatch`,
 * `lineage_id_mismatch`, `created_at_mismatch`, `content_hash_mismatch`, `key_fingerprint_mismatch`.
 * Key-resolution errors pass through. Consumers surface any of these as `invalid_receipt`; the body
 * verdict is independent.
 */
export async function verifyRegistryReceipt(input: VerifyRegistryReceiptInput): Promise<VerifiedRegistryReceipt> {
  const { receipt, authority, resolveKey, context, contentHash, producerKey } = input
  assertWireShape(RegistryReceipt, receipt, 'registry_receipt')
  assertRegistryBinding({ registryDid: receipt.registry_did, keyId: receipt.signature.key_id, authority })
  assertOriginConsistency(receipt, 'verification_failed')

  const receiptHash = computeReceiptHash(receipt)
  verifyReceiptSignature(receiptHash, receipt.signature, await resolveKey(receipt.signature.key_id))

  for (const field of ['ctx_id', 'lineage_id', 'origin_registry', 'created_at'] as const) {
    if (receipt[field] !== context[field]) fail(`${field}_mismatch`, `receipt ${field} differs from the context's`)
  }
  if (receipt.content_hash !== contentHash)
    fail('content_hash_mismatch', 'receipt content_hash differs from the recomputed hash')
  if (receipt.key_fingerprint !== computeKeyFingerprint(producerKey)) {
    fail('key_fingerprint_mismatch', "receipt key_fingerprint differs from the resolved producer key's fingerprint")
  }
  return { receipt, receiptHash }
}

// RFC-ACDP-0010 §4: origin_registry equals the ctx_id authority and the registry_did host.
function assertOriginConsistency(receipt: RegistryReceipt, code: 'invalid_structure' | 'verification_failed'): void {
  const host = hostOfRegistryDid(receipt.registry_did)
  if (receipt.origin_registry !== authorityOfCtxId(receipt.ctx_id) || receipt.origin_registry !== host) {
    throw new ProtocolError(code, 'origin_registry, the ctx_id authority and the registry_did host disagree', {
      details: { reason: 'origin_registry_mismatch' },
    })
  }
}

function fail(reason: string, message: string): never {
  throw new ProtocolError('verification_failed', message, { details: { reason } })
}
