/**
 * A foreign origin's capabilities document (`https://<authority>/.well-known/acdp.json`, RFC-ACDP-0006 §4.1
 * step 2), fetched through the outbound policy client, capped at 64 KiB (§7.3) and cached per authority
 * (§4.2.1: 300 s default TTL). One cache serves both the origin identity check (origin-identity.ts) and the
 * evidence verifier (upstream-evidence.ts), so a resolution fetches it once.
 */
import { CapabilitiesDocument, type OutboundClient, parseJsonStrict } from '@acdp/protocol'
import { Compile } from 'typebox/compile'
import { RegistryError } from '../core/errors.js'

/** RFC-ACDP-0006 §7.3: capabilities and DID documents are capped at 64 KB. */
export const CAPABILITIES_MAX_BYTES = 64 * 1024
/** How long an origin's capabilities are trusted before they are fetched again (RFC-ACDP-0006 §4.2.1 rule 2). */
export const CAPABILITIES_CACHE_MS = 5 * 60_000
const MAX_CACHED_ORIGINS = 1000
const DEFAULT_TIMEOUT_MS = 10_000

const checkCapabilities = Compile(CapabilitiesDocument)

export interface OriginFetchDeps {
  client: Pick<OutboundClient, 'request'>
  totalTimeoutMs?: number
}

/** An origin's capabilities by authority and base URL. @throws RegistryError `cross_registry_resolution_failed`. */
export type OriginCapabilities = (authority: string, baseUrl: string) => Promise<CapabilitiesDocument>

export function createOriginCapabilities(deps: OriginFetchDeps & { clock: () => Date }): OriginCapabilities {
  const cache = new Map<string, { document: CapabilitiesDocument; fetchedAtMs: number }>()
  return async (authority, baseUrl) => {
    const nowMs = deps.clock().getTime()
    const cached = cache.get(authority)
    if (cached && nowMs - cached.fetchedAtMs < CAPABILITIES_CACHE_MS) return cached.document
    const document = await fetchOriginJson(deps, `${baseUrl}/.well-known/acdp.json`, CAPABILITIES_MAX_BYTES)
    if (document === undefined || !checkCapabilities.Check(document)) {
      throw new RegistryError('cross_registry_resolution_failed', 'The origin registry could not be resolved.', {
        details: { reason: 'capabilities_unavailable' },
      })
    }
    cache.delete(authority)
    cache.set(authority, { document, fetchedAtMs: nowMs })
    if (cache.size > MAX_CACHED_ORIGINS) cache.delete(cache.keys().next().value as string)
    return document
  }
}

/**
 * GET a JSON document from an origin, anonymously; `undefined` for a transport failure, a non-200 answer or
 * bytes that are not strict JSON (the caller says which failure that is).
 */
export async function fetchOriginJson(deps: OriginFetchDeps, url: string, maxBodyBytes: number): Promise<unknown> {
  let response
  try {
    response = await deps.client.request(url, {
      method: 'GET',
      headers: { accept: 'application/acdp+json, application/json' },
      maxBodyBytes,
      totalTimeoutMs: deps.totalTimeoutMs ?? DEFAULT_TIMEOUT_MS,
    })
  } catch {
    return undefined
  }
  if (response.status !== 200) return undefined
  try {
    return parseJsonStrict(new TextDecoder('utf-8', { fatal: true }).decode(response.body))
  } catch {
    return undefined
  }
}
