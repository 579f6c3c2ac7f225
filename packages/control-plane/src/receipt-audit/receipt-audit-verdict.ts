/**
 * The receipt audit of ONE ingested publication: the control plane, as a consumer of the registry that announced
 * it, reads the context back from that registry and runs the RFC-ACDP-0010 §8 verification procedure on the
 * receipt it serves — signature under the registry's DID document (current key, else a retired one from
 * `verificationMethod`, §9), registry binding (§8 step 2), context binding (step 3), content binding against the
 * hash WE recompute from the served body (step 4) and producer-key binding (step 5).
 *
 * Verdicts:
 * - `verified` — every step passed under a current receipt key (`assertionMethod`);
 * - `verified_historical` — every step passed under a retired receipt key (in `verificationMethod` only);
 * - `structural` — the receipt is well-formed, registry-bound and its signature verifies, but a binding could not
 *   be recomputed: the producer key no longer resolves (step 5 unchecked), or the context is not readable by the
 *   control plane (the webhook's copy of the receipt was checked against the event; steps 4–5 unchecked);
 * - `discrepancy` — a check failed; `discrepancies` names each (the §8 reasons: `content_hash_mismatch`,
 *   `ctx_id_mismatch`, `invalid_signature`…, plus `served_other_context` and `webhook_receipt_differs`);
 * - `no_receipt` — the registry does not advertise `acdp-registry-receipts`, or serves the context without one;
 * - `error` — environmental (registry or DID host unreachable, 5xx, 429, timeout, refused by the outbound
 *   policy, registry not enrolled with a base URL): never a trust flag; `transient` ones are retried.
 *
 * Every request goes through the SSRF-safe outbound client; every answer is attacker-controlled.
 */
import {
  canonicalize,
  computeContentHash,
  ed25519PublicKeyFromSeed,
  isProtocolError,
  type OutboundClient,
  parseJsonStrict,
  type PublicKeyMaterial,
  verifyRegistryReceipt,
} from '@acdp/protocol'
import type { AuditCandidate, ReceiptVerdict } from './receipt-audit-store.js'
import type { EnrollmentDirectory } from '../registries/enrollment-directory.js'
import { WitnessFetchFailure, type WitnessRegistryClient } from '../witness/witness-registry-client.js'
import type { RegistryKeyResolver } from '../witness/witness-registry-keys.js'

/** The profile a registry advertises when it mints receipts (RFC-ACDP-0010 §11). */
export const RECEIPTS_PROFILE = 'acdp-registry-receipts'

/** A retrieval envelope is at most the registry's body limit plus evidence; 1 MiB like the federation proxy. */
const MAX_CONTEXT_BYTES = 1024 * 1024
const MAX_JSON_DEPTH = 64

export interface VerdictDeps {
  enrollments: Pick<EnrollmentDirectory, 'get'>
  registryClient: Pick<WitnessRegistryClient, 'capabilities'>
  outbound: OutboundClient
  /** The registry's receipt keys (did:web; a plain-http development registry through its enrolled base URL). */
  resolveRegistryKey: RegistryKeyResolver
  /** Producer keys (did:key, did:web over https); `historical` accepts a key in verificationMethod only. */
  resolveProducerKey: (keyId: string, options: { historical: boolean }) => Promise<PublicKeyMaterial>
  requestTimeoutMs: number
}

/** What one audit concluded. */
export interface Verdict {
  verdict: ReceiptVerdict
  discrepancies: string[]
  detail: string
  /** `error` only: worth trying again later (the failure was environmental and may pass). */
  transient: boolean
}

/** Audits one publication; never throws for anything the registry or the network did. */
export async function auditPublication(
  deps: VerdictDeps,
  candidate: AuditCandidate,
  signal: AbortSignal,
): Promise<Verdict> {
  const authority = candidate.registryAuthority
  const enrollment = await deps.enrollments.get(authority)
  if (
    enrollment === undefined ||
    enrollment.tenantId !== candidate.tenantId ||
    !enrollment.enabled ||
    enrollment.baseUrl === null
  ) {
    return error('the registry is not enrolled in this tenant with a base URL: its receipts cannot be read', false)
  }
  const registry = { authority, baseUrl: enrollment.baseUrl }

  let profiles: string[]
  try {
    profiles = (await deps.registryClient.capabilities(authority, registry.baseUrl, signal)).profiles
  } catch (failure) {
    return error(`capabilities could not be read (${categoryOf(failure)})`, true)
  }
  if (!profiles.includes(RECEIPTS_PROFILE)) {
    return final('no_receipt', [], `the registry does not advertise ${RECEIPTS_PROFILE}`)
  }

  const webhookReceipt = readWebhookReceipt(candidate.rawPayload)
  const served = await fetchContext(deps, registry.baseUrl, candidate.ctxId, signal)
  if (served.kind === 'error') return error(served.detail, served.transient)

  const resolveReceiptKey = async (keyId: string, historical: boolean) =>
    deps.resolveRegistryKey(keyId, { forceRefresh: false, registry, historical })

  if (served.kind === 'unreadable') {
    // The context is not visible to us (visibility, auth): check what the webhook carried against the event.
    if (webhookReceipt === undefined)
      return error(`the context is not readable (${served.status}) and the webhook carried no receipt`, false)
    return auditWebhookCopy(webhookReceipt, candidate, authority, resolveReceiptKey, served.status)
  }

  const { envelope, body } = served
  if (body['ctx_id'] !== candidate.ctxId) {
    return final('discrepancy', ['served_other_context'], 'the registry served another context than the one announced')
  }
  const receipt = envelope['registry_receipt']
  if (receipt === undefined || receipt === null) {
    return webhookReceipt === undefined
      ? final('no_receipt', [], 'the registry serves the context without a registry_receipt')
      : final('discrepancy', ['receipt_withdrawn'], 'the webhook carried a receipt the registry no longer serves')
  }
  const extra: string[] = []
  if (webhookReceipt !== undefined && !sameJson(webhookReceipt, receipt)) extra.push('webhook_receipt_differs')

  const producer = await resolveProducer(deps, body)
  if (producer.kind === 'error') return error(producer.detail, true)
  const contentHash = computeContentHash(body)
  const context = {
    ctx_id: candidate.ctxId,
    lineage_id: String(body['lineage_id']),
    origin_registry: String(body['origin_registry']),
    created_at: String(body['created_at']),
  }
  const attempt = (historical: boolean, producerKey: PublicKeyMaterial) =>
    verifyRegistryReceipt({
      receipt,
      authority,
      resolveKey: (keyId) => resolveReceiptKey(keyId, historical),
      context,
      contentHash,
      producerKey,
    })
  const outcome = await verifyUnderEitherKey(attempt, producer.kind === 'key' ? producer.key : UNRESOLVED_KEY)
  if (outcome.kind === 'error') return error(outcome.detail, true)
  if (outcome.kind === 'failed') {
    // Step 5 runs last (§8): with no producer key, a fingerprint "mismatch" alone means every other step passed.
    if (
      producer.kind === 'unresolved' &&
      outcome.reasons.length === 1 &&
      outcome.reasons[0] === 'key_fingerprint_mismatch'
    ) {
      return extra.length > 0
        ? final('discrepancy', extra, 'the webhook and the registry disagree on the receipt')
        : final(
            'structural',
            [],
            `receipt signature and bindings verified; key_fingerprint unchecked: ${producer.detail}`,
          )
    }
    return final('discrepancy', [...outcome.reasons, ...extra], outcome.detail)
  }
  if (extra.length > 0) return final('discrepancy', extra, 'the webhook and the registry disagree on the receipt')
  if (producer.kind === 'unresolved') {
    return final(
      'structural',
      [],
      `receipt signature and bindings verified; key_fingerprint unchecked: ${producer.detail}`,
    )
  }
  return outcome.historical
    ? final('verified_historical', [], 'verified under a retired receipt key (RFC-ACDP-0010 §9)')
    : final('verified', [], 'verified (RFC-ACDP-0010 §8)')
}

/**
 * A valid key no producer uses (derived from a fixed, published seed): stands in when the producer key cannot be
 * resolved, so step 5 reports a fingerprint mismatch and nothing else (see the step-5 note above). It must be a
 * real curve point: strict Ed25519 refuses small-order encodings before any fingerprint is computed.
 */
const UNRESOLVED_KEY: PublicKeyMaterial = {
  algorithm: 'ed25519',
  publicKey: ed25519PublicKeyFromSeed(new TextEncoder().encode('acdp receipt audit: no producer.')),
}

type Attempt = (historical: boolean, producerKey: PublicKeyMaterial) => Promise<unknown>
type AttemptOutcome =
  | { kind: 'ok'; historical: boolean }
  | { kind: 'failed'; reasons: string[]; detail: string }
  | { kind: 'error'; detail: string }

/** Current receipt keys first; a key found only in verificationMethod (retired, §9) on a permanent miss. */
async function verifyUnderEitherKey(attempt: Attempt, producerKey: PublicKeyMaterial): Promise<AttemptOutcome> {
  for (const historical of [false, true]) {
    try {
      await attempt(historical, producerKey)
      return { kind: 'ok', historical }
    } catch (failure) {
      if (!isProtocolError(failure))
        return { kind: 'error', detail: 'the receipt could not be checked (internal error)' }
      if (failure.code === 'key_resolution_unreachable') {
        return { kind: 'error', detail: `the registry DID document could not be read (${reasonOf(failure)})` }
      }
      if (failure.code === 'key_resolution_failed') {
        if (!historical) continue
        return {
          kind: 'failed',
          reasons: ['receipt_key_unresolvable'],
          detail: `the receipt key does not resolve (${reasonOf(failure)})`,
        }
      }
      const reason = failure.code === 'invalid_structure' ? 'schema_violation' : reasonOf(failure)
      return { kind: 'failed', reasons: [reason], detail: failure.message }
    }
  }
  return { kind: 'error', detail: 'unreachable' }
}

/** The webhook's copy, checked without the body: signature, registry and context binding against the event. */
async function auditWebhookCopy(
  receipt: Record<string, unknown>,
  candidate: AuditCandidate,
  authority: string,
  resolveReceiptKey: (keyId: string, historical: boolean) => Promise<PublicKeyMaterial>,
  status: number,
): Promise<Verdict> {
  const payload = safeParse(candidate.rawPayload)
  const claimedHash = typeof receipt['content_hash'] === 'string' ? receipt['content_hash'] : ''
  const attempt: Attempt = (historical, producerKey) =>
    verifyRegistryReceipt({
      receipt,
      authority,
      resolveKey: (keyId) => resolveReceiptKey(keyId, historical),
      context: {
        ctx_id: candidate.ctxId,
        lineage_id: String(payload?.['lineage_id'] ?? receipt['lineage_id']),
        origin_registry: String(receipt['origin_registry']),
        created_at: String(payload?.['created_at'] ?? receipt['created_at']),
      },
      // Not recomputed (no body): the binding checked is only the receipt's own claim.
      contentHash: claimedHash,
      producerKey,
    })
  const outcome = await verifyUnderEitherKey(attempt, UNRESOLVED_KEY)
  if (outcome.kind === 'error') return error(outcome.detail, true)
  if (
    outcome.kind === 'failed' &&
    !(outcome.reasons.length === 1 && outcome.reasons[0] === 'key_fingerprint_mismatch')
  ) {
    return final('discrepancy', outcome.reasons, outcome.detail)
  }
  return final(
    'structural',
    [],
    `the context is not readable by the control plane (${status}): the webhook's receipt signature and context binding verified; content hash and key fingerprint not recomputed`,
  )
}

type Served =
  | { kind: 'context'; envelope: Record<string, unknown>; body: Record<string, unknown> }
  | { kind: 'unreadable'; status: number }
  | { kind: 'error'; detail: string; transient: boolean }

async function fetchContext(deps: VerdictDeps, baseUrl: string, ctxId: string, signal: AbortSignal): Promise<Served> {
  const url = `${baseUrl.replace(/\/+$/, '')}/contexts/${encodeURIComponent(ctxId)}`
  let response
  try {
    response = await deps.outbound.request(url, {
      headers: { accept: 'application/acdp+json, application/json' },
      totalTimeoutMs: deps.requestTimeoutMs,
      maxRedirects: 3,
      maxBodyBytes: MAX_CONTEXT_BYTES,
      signal,
    })
  } catch (failure) {
    const refused = isProtocolError(failure) && failure.code === 'outbound_refused'
    return { kind: 'error', detail: `the context could not be fetched (${reasonOf(failure)})`, transient: !refused }
  }
  const { status } = response
  if (status === 401 || status === 403 || status === 404 || status === 410) return { kind: 'unreadable', status }
  if (status < 200 || status > 299) return { kind: 'error', detail: `the registry answered ${status}`, transient: true }
  let envelope: unknown
  try {
    envelope = parseJsonStrict(new TextDecoder('utf-8', { fatal: true }).decode(response.body), {
      maxDepth: MAX_JSON_DEPTH,
    })
  } catch {
    return { kind: 'context', envelope: {}, body: {} } // no readable ctx_id: reported as served_other_context
  }
  const body = isObject(envelope) ? envelope['body'] : undefined
  if (!isObject(envelope) || !isObject(body)) return { kind: 'context', envelope: {}, body: {} }
  return { kind: 'context', envelope, body }
}

type Producer =
  { kind: 'key'; key: PublicKeyMaterial } | { kind: 'unresolved'; detail: string } | { kind: 'error'; detail: string }

/** The producer key of the served body (historical accepted: the receipt attests the key at publish time, §10). */
async function resolveProducer(deps: VerdictDeps, body: Record<string, unknown>): Promise<Producer> {
  const signature = body['signature']
  const keyId = isObject(signature) ? signature['key_id'] : undefined
  if (typeof keyId !== 'string') return { kind: 'unresolved', detail: 'the body names no signature key_id' }
  try {
    return { kind: 'key', key: await deps.resolveProducerKey(keyId, { historical: true }) }
  } catch (failure) {
    if (isProtocolError(failure) && failure.code === 'key_resolution_unreachable') {
      return { kind: 'error', detail: `the producer DID document could not be read (${reasonOf(failure)})` }
    }
    return { kind: 'unresolved', detail: `the producer key does not resolve (${reasonOf(failure)})` }
  }
}

function readWebhookReceipt(rawPayload: string): Record<string, unknown> | undefined {
  const receipt = safeParse(rawPayload)?.['registry_receipt']
  return isObject(receipt) ? receipt : undefined
}

function safeParse(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text)
    return isObject(value) ? value : undefined
  } catch {
    return undefined
  }
}

function sameJson(a: unknown, b: unknown): boolean {
  try {
    return canonicalize(a) === canonicalize(b)
  } catch {
    return false
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function reasonOf(failure: unknown): string {
  if (isProtocolError(failure)) {
    const reason = failure.details?.['reason']
    return typeof reason === 'string' ? reason : failure.code
  }
  return 'transport'
}

function categoryOf(failure: unknown): string {
  return failure instanceof WitnessFetchFailure ? failure.category : reasonOf(failure)
}

function final(verdict: ReceiptVerdict, discrepancies: string[], detail: string): Verdict {
  return { verdict, discrepancies, detail, transient: false }
}

function error(detail: string, transient: boolean): Verdict {
  return { verdict: 'error', discrepancies: [], detail, transient }
}
