/**
 * The lineage head receipt of a `/current` answer, checked in the browser (RFC-ACDP-0011 §7, with the protocol's
 * own verifier): its registry binding, its signature against the registry's relayed DID document, and that it
 * names the head served. Never throws: bad data is a `failed` verdict with the protocol's reason.
 */
import { isProtocolError, verifyLineageHeadReceipt } from '@acdp/protocol/verify'
import type { Mark } from '../verify/inspect-context.js'
import { browserKeyResolver } from '../verify/inspect-context.js'

export interface HeadVerdict {
  mark: Mark
  /** Why, in words (the protocol's reason code for a failure). */
  detail: string
}

export async function verifyHeadReceipt(
  current: unknown,
  authority: string,
  lineageId: string,
  registry: { did: string; document: string } | undefined,
  now: Date,
): Promise<HeadVerdict> {
  const envelope = current as {
    body?: { ctx_id?: unknown; version?: unknown }
    registry_state?: { status?: unknown }
    lineage_head_receipt?: unknown
  } | null
  if (envelope === null) return { mark: 'not_available', detail: 'the lineage has no current version' }
  if (envelope.lineage_head_receipt === undefined) {
    return { mark: 'not_available', detail: 'the registry served no lineage head receipt' }
  }
  if (registry === undefined) {
    return { mark: 'not_available', detail: "the registry's DID document could not be relayed" }
  }
  const resolver = browserKeyResolver(registry)
  try {
    const verified = await verifyLineageHeadReceipt({
      receipt: envelope.lineage_head_receipt,
      authority,
      capabilitiesRegistryDid: registry.did,
      resolveKey: (keyId) => resolver.resolveKey(keyId),
      lineageId,
      endpoint: 'current',
      served: {
        ctx_id: String(envelope.body?.ctx_id),
        version: Number(envelope.body?.version),
        status: String(envelope.registry_state?.status),
      },
      now,
    })
    return {
      mark: 'verified',
      detail: `signed by ${verified.receipt.registry_did} as of ${verified.receipt.as_of}`,
    }
  } catch (error) {
    const reason = isProtocolError(error) ? String(error.details?.['reason'] ?? error.code) : String(error)
    return { mark: 'failed', detail: reason }
  }
}
