/**
 * One node of a `derived_from` walk (RFC-ACDP-0006 §4.1 steps 1–6, §5): the reference's authority is checked
 * (walk-authorities.ts), the context fetched from that authority's registry, checked to be the one cited, and
 * verified with verifyContext. Every failure of the data or of a registry becomes a reported failure (§5); only
 * the walk's own abort is thrown.
 */
import type { FetchDidDocument } from '../did/resolver.js'
import { isProtocolError } from '../errors.js'
import { authorityOfCtxId } from '../receipt/registry-binding.js'
import { CTX_ID_PATTERN } from '../wire/common.js'
import { fetchContext } from './fetch-context.js'
import { type SdkRequestOptions, sendRegistryRequest } from './registry-http.js'
import type { EvidenceOptions } from './verify-evidence.js'
import { type EnvelopeCheck, type KeyResolver, type VerificationReport, verifyContext } from './verify-context.js'
import type { WalkAuthorities } from './walk-authorities.js'
import type { WalkedNode, WalkFailure } from './walk-result.js'

/** A reference the walk decided to fetch: where it sits in the walk. */
export interface Pending {
  ctxId: string
  depth: number
  referencedBy: string | null
}

export type Resolution = { node: WalkedNode } | { failure: WalkFailure }

const CTX_ID = new RegExp(CTX_ID_PATTERN)

/** Where a fetched node came from, for a caller's own verification of it ({@link NodeContext.verifyNode}). */
export interface NodeTarget {
  ctxId: string
  authority: string
  /** Base URL of the node's OWN authority's registry (the one that served it). */
  registryUrl: string
  resolver: KeyResolver
  /** The walk's signal: aborts at the walk's total deadline or with the caller's signal. */
  signal: AbortSignal
}

/** Replaces the walk's verifyContext call for one node, e.g. to fetch more evidence from its registry first. */
export type VerifyNode = (envelope: WalkedNode['envelope'], target: NodeTarget) => Promise<VerificationReport>

/**
 * Stages whose failure means the signature is not the producer's (RFC-ACDP-0006 §5 untrustworthy): the body
 * stages, a retired key without a verified receipt (RFC-ACDP-0010 §10) and a revoked key (RFC-ACDP-0014 §7,
 * "not attributable to the producer"). Any other stage (receipt, log inclusion, cosignatures, lifecycle events)
 * judges the registry's evidence only: its failure does not invalidate the body (RFC-ACDP-0010 §8, RFC-ACDP-0012
 * §9.3), so such a node is reported with its failed stages and still walked through.
 */
const AUTHORSHIP_STAGES = new Set([
  'schema',
  'producer_content_hash',
  'key_binding',
  'did_resolution',
  'signature',
  'historical_key',
  'key_revocation',
])

/** What resolving a node needs from the walk. */
export interface NodeContext {
  request: SdkRequestOptions
  registryUrlOf: (authority: string) => string
  authorities: WalkAuthorities
  resolver: KeyResolver
  checkRegistries: boolean
  evidence: EvidenceOptions | undefined
  envelopeChecks: readonly EnvelopeCheck[] | undefined
  verifyNode: VerifyNode | undefined
  signal: AbortSignal
  /** Throws the walk's abort error once the walk is aborted (deadline or caller). */
  throwIfAborted: () => void
}

/** Fetches and verifies one reference. Never throws for bad data or a bad registry; throws only on walk abort. */
export async function resolveNode(pending: Pending, context: NodeContext): Promise<Resolution> {
  // A worker still holding queued references after the walk was aborted starts no new fetch.
  context.throwIfAborted()
  const fail = (outcome: WalkFailure['outcome'], reason: string, detail: string, report?: VerificationReport) => ({
    failure: {
      ...pending,
      outcome,
      reason,
      detail,
      ...(report === undefined ? {} : { verification: report }),
    },
  })
  const authority = CTX_ID.test(pending.ctxId) ? authorityOfCtxId(pending.ctxId) : undefined
  if (authority === undefined) return fail('unresolvable', 'invalid_ctx_id', 'not an acdp://<authority>/<uuid> ctx_id')
  let envelope: WalkedNode['envelope']
  try {
    if (context.checkRegistries) {
      const registry = await context.authorities.check(authority)
      if (!registry.ok) return fail('unresolvable', registry.reason, registry.detail)
    }
    envelope = (await fetchContext(context.registryUrlOf(authority), pending.ctxId, context.request)).envelope
  } catch (error) {
    context.throwIfAborted()
    return fail('unresolvable', transportReason(error), describe(error))
  }
  const body = envelope.body
  // Registry-assigned members are not covered by the producer signature (RFC-ACDP-0008 §9.1): a registry could
  // answer with another (valid) context than the one cited, so the answer must be the one asked for.
  if (body['ctx_id'] !== pending.ctxId) {
    return fail('untrustworthy', 'ctx_id_mismatch', `asked for ${pending.ctxId}, served ${String(body['ctx_id'])}`)
  }
  if (body['origin_registry'] !== authority) {
    return fail('untrustworthy', 'origin_mismatch', `origin_registry ${String(body['origin_registry'])} ≠ ${authority}`)
  }
  let report: VerificationReport
  if (context.verifyNode === undefined) {
    report = await verifyContext(envelope, {
      resolver: context.resolver,
      ...(context.evidence ? { evidence: context.evidence } : {}),
      ...(context.envelopeChecks ? { envelopeChecks: context.envelopeChecks } : {}),
    })
  } else {
    try {
      report = await context.verifyNode(envelope, {
        ctxId: pending.ctxId,
        authority,
        registryUrl: context.registryUrlOf(authority),
        resolver: context.resolver,
        signal: context.signal,
      })
    } catch (error) {
      // The caller's verification could not get its evidence (e.g. the node's registry stopped answering).
      context.throwIfAborted()
      return fail('unresolvable', 'evidence_unavailable', describe(error))
    }
  }
  context.throwIfAborted()
  const authorship = report.checks.find((check) => !check.ok && AUTHORSHIP_STAGES.has(check.name))
  if (authorship !== undefined) {
    return fail('untrustworthy', authorship.name, authorship.detail, report)
  }
  return { node: { ...pending, authority, envelope, verification: report } }
}

/** did:web documents through the walk's transport; a walked authority's own DID is read from its registry URL. */
export function didDocumentFetcher(
  registryUrlOf: (authority: string) => string,
  request: SdkRequestOptions,
): FetchDidDocument {
  return async (url) => {
    const target =
      url.pathname === '/.well-known/did.json' && url.protocol === 'https:' && url.port === ''
        ? `${registryUrlOf(url.hostname).replace(/\/+$/, '')}/.well-known/did.json`
        : url.href
    const response = await sendRegistryRequest(
      target,
      { headers: { accept: 'application/did+json, application/json' } },
      request,
    )
    return { status: response.status, body: new TextEncoder().encode(response.text) }
  }
}

function transportReason(error: unknown): string {
  if (!isProtocolError(error)) return 'transport'
  if (error.code === 'request_rejected') {
    return error.details?.['status'] === 404 ? 'not_found' : 'upstream_status'
  }
  if (error.code === 'malformed_input' || error.code === 'too_deep') return 'malformed_document'
  return error.code
}

function describe(error: unknown): string {
  if (isProtocolError(error)) return `${error.code}: ${error.message}`
  return error instanceof Error ? error.message : String(error)
}
