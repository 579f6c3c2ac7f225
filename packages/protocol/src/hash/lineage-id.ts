/**
 * Lineage identifier derivation (RFC-ACDP-0001 §5.6, fixture lin-001).
 */
import { digestSha256Hex } from './sha256-platform.js'

/**
 * `lin:sha256:` + lowercase hex of SHA-256 over the UTF-8 bytes of the first version's full
 * `ctx_id` (including `acdp://` and the authority).
 *
 * @throws TypeError when `firstVersionCtxId` is not a non-empty string (caller misuse).
 */
export function deriveLineageId(firstVersionCtxId: string): string {
  if (typeof firstVersionCtxId !== 'string' || firstVersionCtxId.length === 0) {
    throw new TypeError('deriveLineageId expects the first version ctx_id')
  }
  return 'lin:sha256:' + digestSha256Hex(firstVersionCtxId)
}
