/**
 * The federation proxy (product spec "Federation proxy"): GET /contexts/*ctxId forwards to the registry that owns
 * the context, found among the caller's tenant enrollments, through the SSRF-safe outbound client (HTTPS only,
 * every resolved address checked and pinned, same-authority redirects only and at most 3, 1 MiB, 10 s).
 *
 * Response table:
 *   upstream 2xx or 4xx      → relayed verbatim (status, content-type, body bytes)
 *   upstream 429             → 503 FEDERATION_UPSTREAM_RATE_LIMITED (Retry-After logged, not relayed)
 *   unknown / unenrolled     → 404 REGISTRY_NOT_FOUND (also for another tenant's or a disabled enrollment)
 *   malformed ctxId          → 400 VALIDATION_ERROR
 *   SSRF refusal, transport failure, oversized body, cross-authority or too many redirects, 5xx → 502
 *
 * The request carries the enrollment's read credential when it holds one (registry-read.ts), so a context that
 * credential may read (restricted, private) is relayed too; the outbound client never carries it across a
 * redirect.
 *
 * A relayed 2xx must be the context asked for: its `body.ctx_id` must equal the requested ctx_id (else 502
 * CONTEXT_ID_MISMATCH; a 2xx whose ctx_id cannot be read is 502 CONTEXT_BINDING_UNVERIFIABLE). With
 * FEDERATION_VERIFY_CONTEXTS the producer signature and the registry receipt are verified too (context-check.ts).
 */
import { isProtocolError, type OutboundClient } from '@acdp/protocol'
import { ControlPlaneError } from '../core/errors.js'
import { parseProxiedCtxId } from '../core/proxied-ctx-id.js'
import type { EnrollmentDirectory } from '../registries/enrollment-directory.js'
import { enrolledRegistryRead } from '../registries/registry-read.js'

export interface ProxiedResponse {
  status: number
  contentType: string | undefined
  body: Buffer
}

export interface FederationDeps {
  outbound: OutboundClient
  /** Whole-request deadline (FEDERATION_TIMEOUT_MS, at most 10 s). */
  timeoutMs: number
  enrollments: Pick<EnrollmentDirectory, 'get'>
  /** Extra verification of a 2xx envelope before relaying (FEDERATION_VERIFY_CONTEXTS); throws to refuse. */
  verifyEnvelope?: (envelope: Record<string, unknown>, authority: string) => Promise<void>
  log: { warn(object: unknown, message?: string): void; info(object: unknown, message?: string): void }
  /** Counts each answer (acdp_federation_requests_total{outcome}). */
  onOutcome?: (outcome: string) => void
}

const OUTCOME_OF_CODE: Record<string, string> = {
  VALIDATION_ERROR: 'invalid_ctx_id',
  REGISTRY_NOT_FOUND: 'not_found',
  FEDERATION_UPSTREAM_RATE_LIMITED: 'rate_limited',
  FEDERATION_UPSTREAM_ERROR: 'upstream_error',
  CONTEXT_ID_MISMATCH: 'binding_refused',
  CONTEXT_BINDING_UNVERIFIABLE: 'binding_refused',
}

/** Forwards the retrieval; see the response table above. */
export async function proxyContext(deps: FederationDeps, tenantId: string, rawCtxId: string): Promise<ProxiedResponse> {
  try {
    const answer = await forward(deps, tenantId, rawCtxId)
    deps.onOutcome?.(answer.status < 300 ? 'relayed_2xx' : 'relayed_4xx')
    return answer
  } catch (error) {
    const code = (error as { code?: unknown }).code
    deps.onOutcome?.((typeof code === 'string' ? OUTCOME_OF_CODE[code] : undefined) ?? 'error')
    throw error
  }
}

async function forward(deps: FederationDeps, tenantId: string, rawCtxId: string): Promise<ProxiedResponse> {
  const { ctxId, authority } = parseProxiedCtxId(rawCtxId)
  const target = await enrolledRegistryRead(deps.enrollments, tenantId, authority)
  if (target === undefined) {
    throw new ControlPlaneError('REGISTRY_NOT_FOUND', 'no enrolled registry serves this authority')
  }
  const url = `${target.baseUrl.replace(/\/+$/, '')}/contexts/${encodeURIComponent(ctxId)}`
  let response
  try {
    response = await deps.outbound.request(url, {
      headers: target.headers,
      totalTimeoutMs: deps.timeoutMs,
      maxRedirects: 3,
      maxBodyBytes: 1024 * 1024,
    })
  } catch (error) {
    const reason = isProtocolError(error) ? (error.details?.['reason'] ?? error.code) : 'unknown'
    deps.log.warn({ authority, reason }, 'federation upstream failed')
    throw new ControlPlaneError('FEDERATION_UPSTREAM_ERROR', 'the registry could not be reached safely', {
      cause: error,
    })
  }
  const { status } = response
  if (status === 429) {
    deps.log.info({ authority, retryAfter: response.headers['retry-after'] }, 'federation upstream rate limited')
    throw new ControlPlaneError('FEDERATION_UPSTREAM_RATE_LIMITED', 'the registry is rate limiting this service')
  }
  if (status < 200 || (status >= 300 && status < 400) || status >= 500) {
    deps.log.warn({ authority, status }, 'federation upstream answered an error')
    throw new ControlPlaneError('FEDERATION_UPSTREAM_ERROR', `the registry answered ${status}`)
  }
  const body = Buffer.from(response.body.buffer, response.body.byteOffset, response.body.byteLength)
  if (status < 300) await checkBinding(deps, body, ctxId, authority)
  return { status, contentType: response.headers['content-type'], body }
}

async function checkBinding(deps: FederationDeps, body: Buffer, ctxId: string, authority: string): Promise<void> {
  let envelope: unknown
  try {
    envelope = JSON.parse(body.toString('utf8'))
  } catch {
    envelope = undefined
  }
  const inner = (envelope as { body?: { ctx_id?: unknown } } | undefined)?.body
  const served = inner?.ctx_id
  if (typeof served !== 'string') {
    throw new ControlPlaneError('CONTEXT_BINDING_UNVERIFIABLE', 'the registry answer carries no readable ctx_id')
  }
  if (served !== ctxId) {
    deps.log.warn({ authority }, 'federation upstream served another context than the one asked for')
    throw new ControlPlaneError('CONTEXT_ID_MISMATCH', 'the registry served another context than the one asked for')
  }
  if (deps.verifyEnvelope !== undefined) await deps.verifyEnvelope(envelope as Record<string, unknown>, authority)
}
