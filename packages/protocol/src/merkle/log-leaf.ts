/**
 * RFC-ACDP-0012 §4 log leaves: the closed leaf object binding one accepted publish, and its leaf encoding.
 */
import { canonicalBytes } from '../jcs/index.js'
import { computeReceiptHash } from '../receipt/receipt-hash.js'
import type { MintedRegistryReceipt } from '../receipt/registry-receipt.js'
import { assertWireShape, LogLeaf, type RegistryReceipt } from '../wire/log.js'
import { computeLeafHash } from './tree-hash.js'

/**
 * The §4 leaf for a publish, built from its RFC-ACDP-0010 receipt: the receipt's identifiers, `created_at`,
 * `content_hash` and `key_fingerprint`, plus the receipt hash (which excludes `signature`, so the sanctioned
 * post-compromise re-mint leaves the leaf unchanged). Registries call it with the receipt they mint;
 * verifiers with a receipt verified per RFC-ACDP-0010 §8 (§9.1 step 1), never with an echoed `leaf`.
 */
export function buildLogLeaf(receipt: RegistryReceipt | Omit<RegistryReceipt, 'signature'>): LogLeaf {
  return leafOf(receipt, computeReceiptHash(receipt))
}

/**
 * `encodeLogLeaf(buildLogLeaf(minted.receipt))` for a receipt this process just minted, without its second
 * canonicalization and second closed-shape check: the minting functions checked the receipt against its
 * closed schema, whose members the leaf copies under the same patterns, and `receiptHash` is the hash they
 * signed (a `sha256:` string by construction). The bytes are identical; the publish path calls this once per
 * accepted publish.
 */
export function encodeMintedLogLeaf(minted: MintedRegistryReceipt): Uint8Array {
  return canonicalBytes(leafOf(minted.receipt, minted.receiptHash))
}

function leafOf(receipt: RegistryReceipt | Omit<RegistryReceipt, 'signature'>, receiptHash: string): LogLeaf {
  return {
    leaf_version: 'acdp-log-leaf/1',
    ctx_id: receipt.ctx_id,
    lineage_id: receipt.lineage_id,
    origin_registry: receipt.origin_registry,
    created_at: receipt.created_at,
    content_hash: receipt.content_hash,
    key_fingerprint: receipt.key_fingerprint,
    receipt_hash: receiptHash,
  }
}

/**
 * The leaf encoding (§4): the JCS bytes (RFC 8785, UTF-8) of the closed leaf object, no exclusion set.
 * Throws ProtocolError `invalid_structure` (`schema_violation`) when `leaf` is not a closed §4 leaf: an
 * extra member would silently change every leaf hash.
 */
export function encodeLogLeaf(leaf: LogLeaf): Uint8Array {
  assertWireShape(LogLeaf, leaf, 'log_leaf')
  return canonicalBytes(leaf)
}

/** `SHA-256(0x00 ‖ JCS(leaf))` (§5.1) as raw bytes. Throws as {@link encodeLogLeaf}. */
export function computeLogLeafHash(leaf: LogLeaf): Uint8Array {
  return computeLeafHash(encodeLogLeaf(leaf))
}
