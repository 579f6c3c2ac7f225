/**
 * A lineage as its registry serves it (RFC-ACDP-0004 §5), for consumers that verify themselves (the console's
 * lineage explorer): `GET /lineages/{id}` (every version the reader may retrieve, version ascending) and
 * `GET /lineages/{id}/current` (the head, with its `lineage_head_receipt` under `acdp-registry-head-receipts`,
 * RFC-ACDP-0011), read from an enabled enrollment of the caller's tenant with a base URL through the federation
 * proxy's SSRF-safe outbound client, with the enrollment's read credential when it holds one (registry-read.ts),
 * and relayed unverified: the reader checks the head receipt.
 */
import { isProtocolError } from '@acdp/protocol'
import { ControlPlaneError } from '../core/errors.js'
import type { ContextSearchDeps } from './context-search.js'
import type { RelayedLineage } from '../response-schemas/context-search.js'
import { enrolledRegistryRead } from '../registries/registry-read.js'

/** `lin:sha256:<64 lowercase hex>` (RFC-ACDP-0004 §3). */
export const LINEAGE_ID = /^lin:sha256:[0-9a-f]{64}$/

export type { RelayedLineage }

export type LineageRelayDeps = Omit<ContextSearchDeps, 'store'>

/**
 * @throws ControlPlaneError VALIDATION_ERROR (malformed lineage id), REGISTRY_NOT_FOUND (not an enabled enrollment
 *   of the tenant with a base URL; also when the registry does not know the lineage), FEDERATION_UPSTREAM_ERROR.
 */
export async function relayLineage(
  deps: LineageRelayDeps,
  tenantId: string,
  authority: string,
  lineageId: string,
): Promise<RelayedLineage> {
  if (!LINEAGE_ID.test(lineageId)) throw new ControlPlaneError('VALIDATION_ERROR', 'lineageId must be lin:sha256:<hex>')
  const key = authority.toLowerCase()
  const target = await enrolledRegistryRead(deps.enrollments, tenantId, key)
  if (target === undefined) {
    throw new ControlPlaneError(
      'REGISTRY_NOT_FOUND',
      'no enabled enrolled registry with a base URL serves this authority',
    )
  }
  const base = `${target.baseUrl.replace(/\/+$/, '')}/lineages/${encodeURIComponent(lineageId)}`
  const [versions, current] = await Promise.all([
    read(deps, key, base, target.headers),
    read(deps, key, `${base}/current`, target.headers),
  ])
  if (versions.status === 404) throw new ControlPlaneError('REGISTRY_NOT_FOUND', 'the registry knows no such lineage')
  if (versions.status !== 200 || !Array.isArray(versions.body)) {
    throw new ControlPlaneError('FEDERATION_UPSTREAM_ERROR', `the registry answered ${versions.status} for the lineage`)
  }
  if (current.status !== 200 && current.status !== 404) {
    throw new ControlPlaneError('FEDERATION_UPSTREAM_ERROR', `the registry answered ${current.status} for its head`)
  }
  return { authority: key, versions: versions.body, current: current.status === 200 ? current.body : null }
}

async function read(
  deps: LineageRelayDeps,
  authority: string,
  url: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: unknown }> {
  try {
    const response = await deps.outbound.request(url, {
      headers,
      totalTimeoutMs: deps.timeoutMs,
      maxRedirects: 3,
      maxBodyBytes: 4 * 1024 * 1024,
    })
    let body: unknown
    try {
      body = JSON.parse(new TextDecoder().decode(response.body))
    } catch {
      body = undefined
    }
    return { status: response.status, body }
  } catch (error) {
    const reason = isProtocolError(error) ? String(error.details?.['reason'] ?? error.code) : 'unknown'
    deps.log.warn({ authority, reason }, 'lineage upstream failed')
    throw new ControlPlaneError('FEDERATION_UPSTREAM_ERROR', `the registry could not be reached safely (${reason})`, {
      cause: error,
    })
  }
}
