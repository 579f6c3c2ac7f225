/**
 * Optional verification of a federated context before it is relayed (FEDERATION_VERIFY_CONTEXTS=true):
 * the producer signature (RFC-ACDP-0001, via the protocol SDK's verifyContext; did:web keys resolved through the
 * SSRF-safe client) and, when the envelope carries one, the registry receipt (RFC-ACDP-0010 §8) verified against
 * the authority the context was fetched from (conformance fed-009). Any failure answers 502
 * CONTEXT_BINDING_UNVERIFIABLE: the upstream is at fault, and a context that fails is never relayed, nor is a
 * failing receipt stripped to make the answer look receipt-less.
 *
 * Not checked here: whether the upstream advertises acdp-registry-receipts (a receipt-less answer is relayed).
 */
import {
  computeContentHash,
  DidResolver,
  type EnvelopeCheck,
  isProtocolError,
  type OutboundClient,
  verifyContext,
  verifyRegistryReceipt,
} from '@acdp/protocol'
import { ControlPlaneError } from '../core/errors.js'

const DID_DOCUMENT_MAX_BYTES = 64 * 1024

export type EnvelopeVerifier = (envelope: Record<string, unknown>, authority: string) => Promise<void>

export function createEnvelopeVerifier(options: { outbound: OutboundClient; now: () => number }): EnvelopeVerifier {
  const resolver = new DidResolver({
    fetchDidDocument: async (url) => {
      const response = await options.outbound.request(url, {
        headers: { accept: 'application/did+json, application/json' },
        maxBodyBytes: DID_DOCUMENT_MAX_BYTES,
      })
      return { status: response.status, body: response.body }
    },
    clock: options.now,
  })

  return async (envelope, authority) => {
    const receiptCheck: EnvelopeCheck = {
      member: 'registry_receipt',
      name: 'registry_receipt',
      async run(served, body) {
        const signature = body['signature'] as { key_id?: unknown } | undefined
        try {
          const producerKey = await resolver.resolveKey(String(signature?.key_id))
          await verifyRegistryReceipt({
            receipt: served['registry_receipt'],
            authority,
            resolveKey: (keyId) => resolver.resolveKey(keyId),
            context: {
              ctx_id: String(body['ctx_id']),
              lineage_id: String(body['lineage_id']),
              origin_registry: String(body['origin_registry']),
              created_at: String(body['created_at']),
            },
            contentHash: computeContentHash(body),
            producerKey,
          })
          return { name: 'registry_receipt', ok: true, detail: 'verified' }
        } catch (error) {
          return { name: 'registry_receipt', ok: false, detail: isProtocolError(error) ? error.code : 'error' }
        }
      },
    }
    let failed: string | undefined
    try {
      const report = await verifyContext(envelope, { resolver, envelopeChecks: [receiptCheck] })
      failed = report.ok ? undefined : report.stages.find((stage) => stage.state === 'failed')?.name
    } catch {
      failed = 'envelope'
    }
    if (failed !== undefined) {
      throw new ControlPlaneError(
        'CONTEXT_BINDING_UNVERIFIABLE',
        `the registry answer does not verify (${failed}); it is not relayed`,
      )
    }
  }
}
