/**
 * An enrolled registry's own probes, asked on the console's behalf (issue 23, "Observability": health and
 * readiness of each enrolled registry): `GET <base>/healthz` and `GET <base>/readyz`, in parallel, through the
 * SSRF-safe outbound client the federation proxy uses (HTTPS only in production, every resolved address checked
 * and pinned, no redirects, bounded body and deadline).
 *
 * Only the caller's tenant's enabled enrollments with a base URL are asked; any other authority is 404 whether it
 * exists for another tenant or not. A probe's answer is summarised, never relayed as is: the body is kept only
 * when it is a JSON object of at most MAX_KEPT_BODY_BYTES (larger or non-JSON bodies are dropped), so a registry
 * cannot push arbitrary content through the control plane to the console.
 *
 * Answers are shared for HEALTH_FRESH_MS per (tenant, authority), in flight included: every console tab asks on
 * load, and the control plane should not turn a crowd of readers into a stream of requests to one registry.
 *
 * Status of one probe: `ok` (2xx), `failing` (answered with another status), `not_served` (404: the registry has
 * no such probe — the ACDP registry serves only `/healthz`, which is its readiness check: 200 when its storage
 * answers, 503 otherwise), `unreachable` (refused by the SSRF policy, transport failure, deadline, body too large).
 */
import { isProtocolError, type OutboundClient } from '@acdp/protocol'
import { ControlPlaneError } from '../core/errors.js'
import { enrolledBaseUrl } from './enrolled-base-url.js'
import type { EnrollmentDirectory } from './enrollment-directory.js'
import type { Static } from 'typebox'
import { MAX_KEPT_BODY_BYTES, type RegistryHealth, type RegistryProbeShape } from '../response-schemas/registries.js'

/** One probe's result (GET /registries/:authority/health's `health` and `readiness`). */
export type ProbeResult = Static<typeof RegistryProbeShape>
export type ProbeStatus = ProbeResult['status']

export type { RegistryHealth }

export interface RegistryHealthDeps {
  outbound: OutboundClient
  /** Whole-request deadline per probe. */
  timeoutMs: number
  enrollments: Pick<EnrollmentDirectory, 'get'>
  now: () => Date
}

/** The client stops reading past this (and the probe is `unreachable`, outbound_too_large). */
const MAX_READ_BODY_BYTES = 64 * 1024

/** How long one answer serves every caller of a tenant. */
export const HEALTH_FRESH_MS = 5000
const MAX_SHARED_ANSWERS = 1000

export interface RegistryHealthChecker {
  /**
   * The probes of `authority` for `tenantId`: asked now, or the answer (or the check in flight) of the last
   * HEALTH_FRESH_MS.
   *
   * @throws ControlPlaneError REGISTRY_NOT_FOUND (see checkRegistryHealth), never shared.
   */
  check(tenantId: string, authority: string): Promise<RegistryHealth>
}

export function createRegistryHealthChecker(deps: RegistryHealthDeps): RegistryHealthChecker {
  const shared = new Map<string, { atMs: number; answer: Promise<RegistryHealth> }>()
  return {
    check(tenantId, authority) {
      const key = `${tenantId}\u0000${authority.toLowerCase()}`
      const nowMs = deps.now().getTime()
      const hit = shared.get(key)
      if (hit !== undefined && nowMs - hit.atMs < HEALTH_FRESH_MS) return hit.answer
      const answer = checkRegistryHealth(deps, tenantId, authority)
      shared.delete(key)
      shared.set(key, { atMs: nowMs, answer })
      // A refusal (not enrolled) is not kept: enrolling must show at once.
      answer.catch(() => shared.delete(key))
      if (shared.size > MAX_SHARED_ANSWERS) shared.delete(shared.keys().next().value as string)
      return answer
    },
  }
}

/**
 * Asks both probes of the enrolled registry `authority`.
 *
 * @throws ControlPlaneError REGISTRY_NOT_FOUND when it is not an enabled enrollment of the tenant with a base URL.
 */
export async function checkRegistryHealth(
  deps: RegistryHealthDeps,
  tenantId: string,
  authority: string,
): Promise<RegistryHealth> {
  const key = authority.toLowerCase()
  const baseUrl = await enrolledBaseUrl(deps.enrollments, tenantId, key)
  if (baseUrl === undefined) {
    throw new ControlPlaneError(
      'REGISTRY_NOT_FOUND',
      'no enabled enrolled registry with a base URL serves this authority',
    )
  }
  const base = baseUrl.replace(/\/+$/, '')
  const [health, readiness] = await Promise.all([probe(deps, `${base}/healthz`), probe(deps, `${base}/readyz`)])
  return { authority: key, health, readiness, checkedAt: deps.now().toISOString() }
}

async function probe(deps: RegistryHealthDeps, url: string): Promise<ProbeResult> {
  let response
  try {
    response = await deps.outbound.request(url, {
      headers: { accept: 'application/json' },
      totalTimeoutMs: deps.timeoutMs,
      maxRedirects: 0,
      maxBodyBytes: MAX_READ_BODY_BYTES,
    })
  } catch (error) {
    const category = isProtocolError(error) ? String(error.details?.['reason'] ?? error.code) : 'unknown'
    return { status: 'unreachable', httpStatus: null, body: null, error: category }
  }
  const { status } = response
  const state: ProbeStatus = status >= 200 && status < 300 ? 'ok' : status === 404 ? 'not_served' : 'failing'
  return { status: state, httpStatus: status, body: smallJsonObject(response.body), error: null }
}

function smallJsonObject(bytes: Uint8Array): Record<string, unknown> | null {
  if (bytes.byteLength === 0 || bytes.byteLength > MAX_KEPT_BODY_BYTES) return null
  try {
    const parsed: unknown = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(bytes))
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : null
  } catch {
    return null
  }
}
