/**
 * Cross-registry resolution of foreign ctx_ids (RFC-ACDP-0006 §4.1 step 4, §4.4, §5, §7; product spec
 * registry.md "Publish and lifecycle behaviors" 4).
 *
 * A `GET /contexts/{ctx_id}` for an `acdp://<authority>/<uuid>` whose authority is not ours is fetched from
 * `https://<authority>/contexts/<percent-encoded ctx_id>` anonymously (no caller credential is forwarded, so only
 * public contexts resolve, §4.4), through the outbound SSRF policy client only (§7: HTTPS, every resolved
 * address checked and pinned, same-authority redirects ≤ 3, 1 MiB cap, deadlines). The origin's bytes are
 * returned unchanged, registry_state included, after these checks on a parsed copy:
 *
 * - the document is strict JSON (UTF-8, no duplicate keys) with the retrieval envelope's shape;
 * - `body.ctx_id` equals the requested ctx_id and `body.origin_registry` equals its authority;
 * - `body.content_hash` equals the hash recomputed over the body (§4.1 step 6; §5 "Hash mismatch": corrupt);
 * - `body.visibility` is `public` (an origin that serves a non-public body anonymously is misbehaving);
 * - `registry_state.status` is well-formed (RFC-ACDP-0004 §4.1; `malformed_status`).
 *
 * Before the fetch, the origin's identity is checked (origin-identity.ts, RFC-ACDP-0006 §4.1 steps 2–3): its
 * capabilities must name `did:web:<authority>` unless the operator pinned another DID for it out of band.
 *
 * An origin 404 is `not_found` (§5: unresolvable, and indistinguishable from a non-public context, §4.4); every
 * other failure is `failed` with a reason, which the route answers as 502 `cross_registry_resolution_failed`.
 * The producer signature is not re-verified here (§4.2: the consumer verifies it end to end against the producer's
 * DID). With an evidence verifier (upstream-evidence.ts; always on in production) the origin's receipt and, when it
 * runs a transparency log, its inclusion proof are verified against the origin's authority, and only verified
 * evidence members are forwarded (verbatim); a failure is `invalid_receipt` / `invalid_log_proof` (502).
 */

import {
  computeContentHash,
  isProtocolError,
  type OutboundClient,
  type OutboundResponse,
  parseJsonStrict,
  readRegistryStatus,
} from '@acdp/protocol'
import type { CrossRegistryResolver, ForeignContext } from '../core/deps.js'
import { isRegistryError, RegistryError } from '../core/errors.js'
import type { OriginIdentityCheck } from './origin-identity.js'
import type { UpstreamEvidenceVerifier } from './upstream-evidence.js'

/** §7.3: individual context retrievals are capped at 1 MB. */
export const FOREIGN_CONTEXT_MAX_BYTES = 1024 * 1024
/** §7.4: total request deadline, at most 30 s; the product keeps well inside it. */
export const DEFAULT_FOREIGN_CONTEXT_TIMEOUT_MS = 10_000

/** `acdp://<hostname>/<uuid v4>` with capture groups (RFC-ACDP-0001 §5.5). */
const CTX_ID =
  /^acdp:\/\/([a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*)\/([0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12})$/

/** Why a resolution failed; used in logs and the `cross_registry_resolution_failed` details. */
export type CrossRegistryFailureReason =
  | 'invalid_ctx_id'
  | 'outbound_refused'
  | 'outbound_failed'
  | 'outbound_too_large'
  | 'upstream_status'
  | 'malformed_document'
  | 'malformed_status'
  | 'ctx_id_mismatch'
  | 'authority_mismatch'
  | 'hash_mismatch'
  | 'not_public'

/** Outcome of one resolution. */
export type ForeignContextResolution =
  | {
      outcome: 'resolved'
      /** The origin's response document, byte for byte. */
      body: Uint8Array
      /** The context body's JSON text exactly as it appears inside the origin's document. */
      bodyText: string
      /** The origin's `registry_state` (envelope form only). */
      registryState?: Record<string, unknown>
      /** The verified `content_hash` of the resolved body (for an ETag). */
      contentHash: string
      /** Verified evidence members to forward (`,"registry_receipt":…`), or '' (none, or no verifier). */
      evidenceJson: string
    }
  | { outcome: 'not_found' }
  /** The origin's evidence failed verification: answer with `error` (invalid_receipt, invalid_log_proof, …). */
  | { outcome: 'rejected'; error: RegistryError }
  | { outcome: 'failed'; reason: CrossRegistryFailureReason; upstreamStatus?: number }

/** Which origin resource is fetched: the full retrieval envelope or the bare `/body` (RFC-ACDP-0004 §2). */
export type ForeignContextForm = 'envelope' | 'body'

/** Injected effects and limits. */
export interface CrossRegistryDeps {
  client: Pick<OutboundClient, 'request'>
  /**
   * Origin base URL for an authority. Default `https://<authority>` (RFC-ACDP-0006 §4.1). Tests map an authority
   * to a loopback port here; the policy client still checks the scheme and every resolved address.
   */
  originBaseUrl?: (authority: string) => string
  totalTimeoutMs?: number
  /** Observer for metrics (`resolved`, `not_found`, or a failure reason); must not throw. */
  onOutcome?: (outcome: string) => void
  /** Verifies the origin's receipt and log inclusion (envelope form only); without it evidence is not forwarded. */
  verifyEvidence?: UpstreamEvidenceVerifier
  /**
   * Checks the origin's registry identity before anything is fetched from it (origin-identity.ts). The registry
   * always wires it (deps.ts); only unit tests of the document checks leave it out.
   */
  checkOrigin?: OriginIdentityCheck
  /** Told of a well-formed status this version does not define (RFC-ACDP-0004 §4.1 "SHOULD log"); must not throw. */
  onUnknownStatus?: (authority: string, status: string) => void
}

/**
 * Splits a ctx_id into authority and id, or `undefined` when it does not match RFC-ACDP-0001 §5.5.
 *
 * @param ctxId attacker-controlled: taken from the request path.
 */
export function parseCtxIdAuthority(ctxId: string): { authority: string; id: string } | undefined {
  const match = CTX_ID.exec(ctxId)
  return match ? { authority: match[1]!, id: match[2]! } : undefined
}

/**
 * Fetches a foreign context from its origin registry and checks it (see the file comment). Never throws for
 * network or document faults; the outcome says what happened.
 *
 * @param ctxId attacker-controlled: the requested ctx_id (already known to be foreign by the caller).
 */
export async function resolveForeignContext(
  deps: CrossRegistryDeps,
  ctxId: string,
  form: ForeignContextForm = 'envelope',
): Promise<ForeignContextResolution> {
  const result = await fetchAndCheck(deps, ctxId, form)
  try {
    deps.onOutcome?.(
      result.outcome === 'failed'
        ? result.reason
        : result.outcome === 'rejected'
          ? String(result.error.details?.reason ?? result.error.code)
          : result.outcome,
    )
  } catch {
    // A metrics observer fault must not change the answer.
  }
  return result
}

async function fetchAndCheck(
  deps: CrossRegistryDeps,
  ctxId: string,
  form: ForeignContextForm,
): Promise<ForeignContextResolution> {
  const parsed = parseCtxIdAuthority(ctxId)
  if (parsed === undefined) return { outcome: 'failed', reason: 'invalid_ctx_id' }
  const base = (deps.originBaseUrl ?? defaultOriginBaseUrl)(parsed.authority)
  const url = `${base}/contexts/${encodeURIComponent(ctxId)}${form === 'body' ? '/body' : ''}`
  if (deps.checkOrigin) {
    try {
      await deps.checkOrigin(parsed.authority, base)
    } catch (error) {
      if (isRegistryError(error)) return { outcome: 'rejected', error }
      throw error
    }
  }

  let response: OutboundResponse
  try {
    response = await deps.client.request(url, {
      method: 'GET',
      // No Authorization, no cookies, no tenant header: resolution is anonymous (RFC-ACDP-0006 §4.4).
      headers: { accept: 'application/acdp+json, application/json' },
      maxBodyBytes: FOREIGN_CONTEXT_MAX_BYTES,
      totalTimeoutMs: deps.totalTimeoutMs ?? DEFAULT_FOREIGN_CONTEXT_TIMEOUT_MS,
    })
  } catch (error) {
    if (isProtocolError(error) && (error.code === 'outbound_refused' || error.code === 'outbound_too_large')) {
      return { outcome: 'failed', reason: error.code }
    }
    return { outcome: 'failed', reason: 'outbound_failed' }
  }
  if (response.status === 404) return { outcome: 'not_found' }
  if (response.status !== 200) return { outcome: 'failed', reason: 'upstream_status', upstreamStatus: response.status }

  const document = readContextDocument(response.body, form)
  if (document === undefined) return { outcome: 'failed', reason: 'malformed_document' }
  // RFC-ACDP-0004 §4.1: we are the origin's consumer, and a malformed status MUST be rejected (an unknown
  // well-formed one is relayed: our own callers apply the same rule).
  const status = document.registryState ? readRegistryStatus(document.registryState.status) : undefined
  if (status?.kind === 'malformed') return { outcome: 'failed', reason: 'malformed_status' }
  if (status?.kind === 'unknown') {
    try {
      deps.onUnknownStatus?.(parsed.authority, status.status)
    } catch {
      // A logging fault must not change the answer.
    }
  }
  const { body } = document
  if (body.ctx_id !== ctxId) return { outcome: 'failed', reason: 'ctx_id_mismatch' }
  if (body.origin_registry !== parsed.authority) return { outcome: 'failed', reason: 'authority_mismatch' }
  if (body.visibility !== 'public') return { outcome: 'failed', reason: 'not_public' }
  let recomputed: string
  try {
    recomputed = computeContentHash(body)
  } catch {
    return { outcome: 'failed', reason: 'malformed_document' }
  }
  if (recomputed !== body.content_hash) return { outcome: 'failed', reason: 'hash_mismatch' }
  let evidenceJson = ''
  if (form === 'envelope' && deps.verifyEvidence && document.envelope && document.text !== undefined) {
    const text = document.text
    try {
      evidenceJson = (
        await deps.verifyEvidence({
          ctxId,
          authority: parsed.authority,
          baseUrl: base,
          body,
          contentHash: recomputed,
          envelope: document.envelope,
          memberSource: (name) => {
            const span = findTopLevelMemberSpan(text, name)
            return span === undefined ? undefined : text.slice(span.start, span.end)
          },
        })
      ).forwardedMembersJson
    } catch (error) {
      if (isRegistryError(error)) return { outcome: 'rejected', error }
      throw error
    }
  }
  return {
    outcome: 'resolved',
    body: response.body,
    bodyText: document.bodyText,
    ...(document.registryState === undefined ? {} : { registryState: document.registryState }),
    contentHash: recomputed,
    evidenceJson,
  }
}

/**
 * The registry's `CrossRegistryResolver` (deps.ts) over {@link resolveForeignContext}: origin 404 becomes
 * `not_found` (RFC-ACDP-0006 §5; indistinguishable from a non-public context, §4.4) and every other failure
 * `cross_registry_resolution_failed` (502) with `details.reason` (product spec behaviour 4).
 *
 * @throws RegistryError `not_found` | `cross_registry_resolution_failed`.
 */
export function createCrossRegistryResolver(deps: CrossRegistryDeps): CrossRegistryResolver {
  return {
    async resolve(ctxId: string): Promise<ForeignContext> {
      const result = await resolveForeignContext(deps, ctxId)
      if (result.outcome === 'not_found') throw new RegistryError('not_found', 'The context was not found.')
      if (result.outcome === 'rejected') throw result.error
      if (result.outcome === 'failed') {
        throw new RegistryError('cross_registry_resolution_failed', 'The origin registry could not be resolved.', {
          details: { reason: result.reason },
        })
      }
      return {
        bodyText: result.bodyText,
        registryState: result.registryState ?? {},
        contentHash: result.contentHash,
        evidenceJson: result.evidenceJson,
      }
    },
  }
}

function defaultOriginBaseUrl(authority: string): string {
  return `https://${authority}`
}

interface ContextDocument {
  body: Record<string, unknown>
  bodyText: string
  registryState?: Record<string, unknown>
  /** Envelope form: the whole parsed document and its text. */
  envelope?: Record<string, unknown>
  text?: string
}

/**
 * Parses the origin's document and returns the context body inside it (with its exact source text), or
 * `undefined` when the bytes are not a well-formed document of the expected form.
 *
 * @param bytes attacker-controlled: the origin's response body.
 */
function readContextDocument(bytes: Uint8Array, form: ForeignContextForm): ContextDocument | undefined {
  let text: string
  let document: unknown
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes)
    document = parseJsonStrict(text)
  } catch {
    return undefined
  }
  if (!isObject(document)) return undefined
  if (form === 'body') return { body: document, bodyText: text.trim() }
  const { body, registry_state: registryState } = document
  if (!isObject(body) || !isObject(registryState) || typeof registryState.status !== 'string') return undefined
  const span = findTopLevelMemberSpan(text, 'body')
  if (span === undefined) return undefined
  return { body, bodyText: text.slice(span.start, span.end), registryState, envelope: document, text }
}

/**
 * The [start, end) character span of the value of top-level member `name` in a JSON object text. The text must
 * already have passed strict parsing (valid JSON, no duplicate member names), so the scan only tracks strings
 * and nesting. Returns `undefined` when the member is absent.
 */
export function findTopLevelMemberSpan(text: string, name: string): { start: number; end: number } | undefined {
  let i = skipWhitespace(text, 0)
  if (text[i] !== '{') return undefined
  i += 1
  while (i < text.length) {
    i = skipWhitespace(text, i)
    if (text[i] === '}') return undefined
    if (text[i] === ',') {
      i = skipWhitespace(text, i + 1)
    }
    const keyEnd = skipString(text, i)
    const key = JSON.parse(text.slice(i, keyEnd)) as string
    i = skipWhitespace(text, keyEnd)
    i = skipWhitespace(text, i + 1) // the ':'
    const start = i
    const end = skipValue(text, i)
    if (key === name) return { start, end }
    i = end
  }
  return undefined
}

function skipWhitespace(text: string, i: number): number {
  while (i < text.length && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i += 1
  return i
}

/** `text[i]` is an opening quote; returns the index after the closing quote. */
function skipString(text: string, i: number): number {
  for (let j = i + 1; j < text.length; j += 1) {
    if (text[j] === '\\') j += 1
    else if (text[j] === '"') return j + 1
  }
  return text.length
}

/** Returns the index just after the JSON value starting at `i`. */
function skipValue(text: string, i: number): number {
  const first = text[i]
  if (first === '"') return skipString(text, i)
  if (first !== '{' && first !== '[') {
    let j = i
    while (j < text.length && !',}] \t\n\r'.includes(text[j]!)) j += 1
    return j
  }
  let depth = 0
  for (let j = i; j < text.length; j += 1) {
    const ch = text[j]
    if (ch === '"') j = skipString(text, j) - 1
    else if (ch === '{' || ch === '[') depth += 1
    else if (ch === '}' || ch === ']') {
      depth -= 1
      if (depth === 0) return j + 1
    }
  }
  return text.length
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
