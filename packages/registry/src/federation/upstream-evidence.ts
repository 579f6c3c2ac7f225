/**
 * Federation with verified origins (RFC-ACDP-0006 with RFC-ACDP-0010 §8 and RFC-ACDP-0012 §9.1; fixture fed-009):
 * before a foreign context is served, the origin's own evidence is checked against the ORIGIN's authority.
 *
 * - The origin's capabilities (`/.well-known/acdp.json`, 64 KiB cap, cached per authority) say what it promises.
 * - `registry_receipt`: verified whenever present (signature under the origin's DID document key — retired
 *   receipt keys accepted from verificationMethod, §9 —, registry binding, context binding to the requested
 *   ctx_id, content binding to our own recomputed hash, producer-key fingerprint). Absent while the origin
 *   advertises `acdp-registry-receipts` is a failure too (§7: no degraded mode). → `invalid_receipt` (502).
 * - When the origin advertises `acdp-registry-transparency-log`: the inclusion proof (the envelope's
 *   `log_inclusion`, else `GET /log/proof?ctx_id=`) must prove the leaf rebuilt from the verified receipt under
 *   a signed checkpoint of the origin's log. → `invalid_log_proof` (502).
 *
 * Failures carry `details.reason` (the protocol library's reason) and `details.stage`. Verified members are
 * forwarded verbatim; unverifiable ones are never passed on as if they were evidence.
 */
import {
  buildLogLeaf,
  computeLogLeafHash,
  isProtocolError,
  type OutboundClient,
  type PublicKeyMaterial,
  type RegistryReceipt,
  verifyLogInclusion,
  verifyRegistryReceipt,
} from '@acdp/protocol'
import type { KeyResolver } from '../core/deps.js'
import { RegistryError } from '../core/errors.js'
import { createOriginCapabilities, fetchOriginJson, type OriginCapabilities } from './origin-capabilities.js'

/** Proofs are small (a log of 2^40 leaves has a 40-hash path); 64 KiB is generous. */
const PROOF_MAX_BYTES = 64 * 1024

export interface UpstreamEvidenceDeps {
  client: Pick<OutboundClient, 'request'>
  /** The registry's DID resolver (SSRF-safe fetches); `historical` accepts verificationMethod-only keys. */
  resolver: KeyResolver
  clock: () => Date
  totalTimeoutMs?: number
  /** The origins' capabilities, shared with the origin identity check; default: a cache of its own. */
  capabilities?: OriginCapabilities
}

/** What the resolver already established about the foreign document. */
export interface UpstreamDocument {
  ctxId: string
  /** The ctx_id's authority (a bare hostname): every binding is checked against it, never against ours. */
  authority: string
  /** Where that authority is reached (`https://<authority>` in production). */
  baseUrl: string
  /** The parsed body (already checked: ctx_id, origin_registry, visibility, content_hash). */
  body: Record<string, unknown>
  /** Our own recomputed content_hash of the body. */
  contentHash: string
  /** The parsed envelope. */
  envelope: Record<string, unknown>
  /** The exact source text of a top-level envelope member (verified members are forwarded byte for byte). */
  memberSource: (name: string) => string | undefined
}

/** The evidence members to forward, as JSON text fragments (`,"registry_receipt":{…}`), possibly empty. */
export interface VerifiedEvidence {
  forwardedMembersJson: string
}

/** Verifies the origin's evidence; returns what may be forwarded. @throws RegistryError (see file comment). */
export type UpstreamEvidenceVerifier = (document: UpstreamDocument) => Promise<VerifiedEvidence>

export function createUpstreamEvidenceVerifier(deps: UpstreamEvidenceDeps): UpstreamEvidenceVerifier {
  const capabilitiesOf = deps.capabilities ?? createOriginCapabilities(deps)
  const fetchJson = (url: string, maxBodyBytes: number) => fetchOriginJson(deps, url, maxBodyBytes)

  const resolveHistorical = async (keyId: string) => deps.resolver.resolveKey(keyId, { historical: true })

  return async (doc) => {
    const caps = await capabilitiesOf(doc.authority, doc.baseUrl)
    const profiles = caps.profiles
    const receipt = doc.envelope.registry_receipt
    if (receipt === undefined) {
      if (profiles.includes('acdp-registry-receipts')) {
        throw invalid('invalid_receipt', 'registry_receipt', 'receipt_missing')
      }
      // Receipt-less origin: the v0.1.0 trust model (RFC-ACDP-0008 §9.1); nothing to forward.
      return { forwardedMembersJson: '' }
    }

    const signature = doc.body.signature as { key_id?: unknown } | undefined
    let producerKey: PublicKeyMaterial
    try {
      producerKey = await resolveHistorical(String(signature?.key_id))
    } catch (error) {
      throw invalid('invalid_receipt', 'registry_receipt', 'producer_key_unresolvable', error)
    }
    let verifiedReceipt: RegistryReceipt
    try {
      verifiedReceipt = (
        await verifyRegistryReceipt({
          receipt,
          authority: doc.authority,
          resolveKey: resolveHistorical,
          context: {
            ctx_id: doc.ctxId,
            lineage_id: String(doc.body.lineage_id),
            origin_registry: String(doc.body.origin_registry),
            created_at: String(doc.body.created_at),
          },
          contentHash: doc.contentHash,
          producerKey,
        })
      ).receipt
    } catch (error) {
      throw invalid('invalid_receipt', 'registry_receipt', reasonOf(error), error)
    }
    let forwarded = `,"registry_receipt":${memberText(doc, 'registry_receipt')}`

    if (profiles.includes('acdp-registry-transparency-log')) {
      const inline = doc.envelope.log_inclusion
      const inclusion =
        inline ?? (await fetchJson(`${doc.baseUrl}/log/proof?ctx_id=${encodeURIComponent(doc.ctxId)}`, PROOF_MAX_BYTES))
      if (inclusion === undefined) throw invalid('invalid_log_proof', 'log_inclusion', 'proof_unavailable')
      if (isObject(inclusion) && inline === undefined) delete inclusion.leaf
      try {
        await verifyLogInclusion(inclusion, computeLogLeafHash(buildLogLeaf(verifiedReceipt)), {
          authority: doc.authority,
          capabilitiesRegistryDid: caps.registry_did,
          resolveKey: resolveHistorical,
          now: deps.clock(),
        })
      } catch (error) {
        throw invalid('invalid_log_proof', 'log_inclusion', reasonOf(error), error)
      }
      if (inline !== undefined) forwarded += `,"log_inclusion":${memberText(doc, 'log_inclusion')}`
    }
    return { forwardedMembersJson: forwarded }
  }
}

function memberText(doc: UpstreamDocument, name: string): string {
  return doc.memberSource(name) ?? JSON.stringify(doc.envelope[name])
}

function reasonOf(error: unknown): string {
  if (isProtocolError(error)) {
    const reason = error.details?.reason
    return typeof reason === 'string' ? reason : error.code
  }
  return 'verification_error'
}

function invalid(
  code: 'invalid_receipt' | 'invalid_log_proof',
  stage: string,
  reason: string,
  cause?: unknown,
): RegistryError {
  const message =
    code === 'invalid_receipt'
      ? "The origin registry's receipt did not verify."
      : "The origin registry's log inclusion proof did not verify."
  return new RegistryError(code, message, { details: { stage, reason }, cause })
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
