/**
 * RFC-ACDP-0011 lineage-head receipts: minting (§5, §6) and the consumer verification procedure (§7).
 * Same key and construction as RFC-ACDP-0010 receipts; `receipt_version` separates the two domains.
 */
import { ProtocolError } from '../errors.js'
import { assertWireShape, LineageHeadReceipt } from '../wire/log.js'
import { computeReceiptHash } from './receipt-hash.js'
import {
  type ResolveVerificationKey,
  type SigningKey,
  signReceiptHash,
  verifyReceiptSignature,
} from './receipt-signature.js'
import { assertRegistryBinding, authorityOfCtxId, didOfKeyId, hostOfRegistryDid } from './registry-binding.js'

/** RECOMMENDED allowance for a registry clock ahead of the consumer's (RFC-ACDP-0011 §7 step 6). */
export const DEFAULT_MAX_FUTURE_SKEW_MS = 120_000

/** A head receipt before signing. */
export type UnsignedLineageHeadReceipt = Omit<LineageHeadReceipt, 'signature'>

/**
 * Mints a head receipt (RFC-ACDP-0011 §5): checks the key id is under `registry_did`, signs the receipt-hash
 * string, and validates the closed shape (which also refuses a `superseded`/`retracted` head status) and the
 * `head_ctx_id` authority. Throws ProtocolError `invalid_structure` (`key_id_not_under_registry_did`,
 * `schema_violation`, `head_ctx_id_authority_mismatch`).
 */
export function signLineageHeadReceipt(unsigned: UnsignedLineageHeadReceipt, key: SigningKey): LineageHeadReceipt {
  if (didOfKeyId(key.keyId) !== unsigned.registry_did) {
    throw new ProtocolError('invalid_structure', 'the signing key is not a DID URL under registry_did', {
      details: { reason: 'key_id_not_under_registry_did' },
    })
  }
  const receipt: LineageHeadReceipt = { ...unsigned, signature: signReceiptHash(computeReceiptHash(unsigned), key) }
  assertWireShape(LineageHeadReceipt, receipt, 'lineage_head_receipt')
  assertHeadAuthority(receipt, 'invalid_structure')
  return receipt
}

/** What the response carrying the head receipt served (RFC-ACDP-0011 §7 steps 4–5). */
export interface ServedContext {
  /** `body.ctx_id`. */
  readonly ctx_id: string
  /** `body.version`. */
  readonly version: number
  /** `registry_state.status`. */
  readonly status: string
}

/** Input of {@link verifyLineageHeadReceipt}. */
export interface VerifyLineageHeadReceiptInput {
  /** The `lineage_head_receipt` member as received — attacker-controlled. */
  readonly receipt: unknown
  /** The authority the response was fetched from (`host` or `host:port`). */
  readonly authority: string
  /** `capabilities.registry_did`, when known; must agree with `registry_did` (§7 step 3). */
  readonly capabilitiesRegistryDid?: string | undefined
  readonly resolveKey: ResolveVerificationKey
  /** The lineage requested on `/current`, or the retrieved `body.lineage_id` (§7 step 4). */
  readonly lineageId: string
  /**
   * `'current'` for `GET /lineages/{id}/current` (the receipt must name the served head), `'context'` for
   * full retrieval (it may name a newer head; §7 step 5b).
   */
  readonly endpoint: 'current' | 'context'
  readonly served: ServedContext
  /** The consumer's clock (injected). */
  readonly now: Date
  /** Allowed registry clock lead; default {@link DEFAULT_MAX_FUTURE_SKEW_MS}. */
  readonly maxFutureSkewMs?: number
}

/** A head receipt that passed RFC-ACDP-0011 §7; `ageMs` feeds the consumer's separate freshness policy (§6). */
export interface VerifiedLineageHeadReceipt {
  readonly receipt: LineageHeadReceipt
  readonly receiptHash: string
  /** `now − as_of` in milliseconds (negative within the skew allowance). */
  readonly ageMs: number
}

/**
 * RFC-ACDP-0011 §7: closed parse (step 1), registry binding before any key resolution (step 3), signature
 * (step 2), lineage binding (step 4), head binding (step 5 / 5b) and `as_of` skew (step 6).
 *
 * Throws ProtocolError `invalid_structure` (`schema_violation`) or `verification_failed` with
 * `details.reason`: the `assertRegistryBinding` reasons, `head_ctx_id_authority_mismatch`, the signature
 * reasons of `verifyReceiptSignature`, `lineage_id_mismatch`, `head_ctx_id_mismatch`,
 * `head_version_mismatch`, `head_status_mismatch`, `head_not_newer`, `served_status_not_superseded`,
 * `as_of_in_future`. Consumers surface all of these as `invalid_receipt`; staleness is NOT checked here.
 */
export async function verifyLineageHeadReceipt(
  input: VerifyLineageHeadReceiptInput,
): Promise<VerifiedLineageHeadReceipt> {
  const { receipt, authority, capabilitiesRegistryDid, resolveKey, lineageId, endpoint, served, now } = input
  const maxFutureSkewMs = input.maxFutureSkewMs ?? DEFAULT_MAX_FUTURE_SKEW_MS
  assertWireShape(LineageHeadReceipt, receipt, 'lineage_head_receipt')
  assertRegistryBinding({
    registryDid: receipt.registry_did,
    keyId: receipt.signature.key_id,
    authority,
    capabilitiesRegistryDid,
  })
  assertHeadAuthority(receipt, 'verification_failed')

  const receiptHash = computeReceiptHash(receipt)
  verifyReceiptSignature(receiptHash, receipt.signature, await resolveKey(receipt.signature.key_id))

  if (receipt.lineage_id !== lineageId) fail('lineage_id_mismatch', 'head receipt names another lineage')
  if (endpoint === 'current' || receipt.head_ctx_id === served.ctx_id) {
    if (receipt.head_ctx_id !== served.ctx_id)
      fail('head_ctx_id_mismatch', 'head receipt names another head than the one served')
    if (receipt.head_version !== served.version)
      fail('head_version_mismatch', 'head receipt version differs from the served body')
    if (receipt.head_status !== served.status)
      fail('head_status_mismatch', 'head receipt status differs from the served status')
  } else {
    // §7 step 5b: naming a different head claims the served context is no longer current.
    if (receipt.head_version <= served.version)
      fail('head_not_newer', 'head receipt names an older or equal version as head')
    if (served.status !== 'superseded' && served.status !== 'retracted') {
      fail(
        'served_status_not_superseded',
        'head receipt names a newer head but the served context claims to be current',
      )
    }
  }

  const asOfMs = Date.parse(receipt.as_of)
  const nowMs = now.getTime()
  if (asOfMs > nowMs + maxFutureSkewMs)
    fail('as_of_in_future', 'as_of is beyond the allowed clock skew', { max_future_skew_ms: maxFutureSkewMs })
  return { receipt, receiptHash, ageMs: nowMs - asOfMs }
}

// RFC-ACDP-0011 §4 / §7 step 3: lineages are single-registry, so the head lives at the attesting registry.
function assertHeadAuthority(receipt: LineageHeadReceipt, code: 'invalid_structure' | 'verification_failed'): void {
  if (authorityOfCtxId(receipt.head_ctx_id) !== hostOfRegistryDid(receipt.registry_did)) {
    throw new ProtocolError(code, 'head_ctx_id authority differs from the registry_did host', {
      details: { reason: 'head_ctx_id_authority_mismatch' },
    })
  }
}

function fail(reason: string, message: string, details: Record<string, unknown> = {}): never {
  throw new ProtocolError('verification_failed', message, { details: { reason, ...details } })
}
