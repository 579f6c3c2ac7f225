/**
 * RFC-ACDP-0011 lineage-head receipts: minted per `/current` response (§6: never persisted), signed with the
 * receipt key, naming the head the requester was actually served — heads are requester-relative.
 */
import { type SigningKey, signLineageHeadReceipt } from '@acdp/protocol'
import type { StoredContext } from '../store/store.js'
import type { ContextStatus } from '../retrieval/context-status.js'
import { formatTimestamp } from '../core/timestamps.js'

/** The `,"lineage_head_receipt":{…}` member for the envelope of a served head. */
export function renderHeadReceiptMember(
  key: SigningKey,
  registryDid: string,
  head: Pick<StoredContext, 'ctxId' | 'lineageId' | 'version'>,
  status: ContextStatus,
  now: Date,
): string {
  const receipt = signLineageHeadReceipt(
    {
      receipt_version: 'acdp-lhr/1',
      registry_did: registryDid,
      lineage_id: head.lineageId,
      head_ctx_id: head.ctxId,
      head_version: head.version,
      head_status: status,
      as_of: formatTimestamp(now),
    },
    key,
  )
  return `,"lineage_head_receipt":${JSON.stringify(receipt)}`
}
