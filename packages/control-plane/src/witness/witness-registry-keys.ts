/**
 * Where the witness reads a registry's checkpoint key (RFC-ACDP-0012 §9.3 step 2): the registry's did:web document.
 *
 * Normally at the DID's own host over https (did:web, through the SSRF-safe client), like every other DID. One
 * exception, for development stacks: a registry enrolled with a plain-http base URL (`acdp dev` serves its registry
 * as `http://127.0.0.1:<port>` under the authority `localhost`) has its OWN DID — `did:web:<enrolled authority>`,
 * nothing else — read from `<base URL>/.well-known/did.json` instead. The outbound policy still decides whether that
 * request may be made: plain http reaches only operator-allowlisted addresses (`OUTBOUND_ALLOW_CIDRS` with
 * `OUTBOUND_ALLOW_HTTP`), which production refuses, so in production the exception can never apply.
 *
 * Enrollments with an https base URL keep the standard resolution even when the base URL names another host: our
 * cosignature is a public statement that the checkpoint carries the signature of the key the DID's host publishes,
 * and an enrolled address must not be able to stand in for that host.
 */
import {
  DidResolver,
  didOfKeyId,
  didWebToUrl,
  MAX_DID_DOCUMENT_BYTES,
  type OutboundClient,
  type PublicKeyMaterial,
  registryDidForAuthority,
} from '@acdp/protocol'

/** The enrolled registry whose checkpoint is being verified. */
export interface RegistryAddress {
  authority: string
  baseUrl: string
}

/**
 * Resolves a registry's checkpoint or receipt key; `forceRefresh` after a failed signature (key rotation, §5.11);
 * `historical` also accepts a key listed in verificationMethod only (a retired receipt key, RFC-ACDP-0010 §9).
 */
export type RegistryKeyResolver = (
  keyId: string,
  options: { forceRefresh: boolean; registry: RegistryAddress; historical?: boolean },
) => Promise<PublicKeyMaterial>

/** Bound of the authority → base URL table of plain-http registries (development stacks: a handful). */
const MAX_PLAIN_HTTP_REGISTRIES = 10_000

/**
 * Builds the resolver.
 *
 * @param standard the did:web resolver of everything else (shared with quorum; its cache is reused).
 */
export function createRegistryKeyResolver(deps: {
  standard: DidResolver
  outbound: OutboundClient
  now: () => number
}): RegistryKeyResolver {
  /** authority → enrolled plain-http base URL, written just before a resolution that needs it. */
  const plainHttpBaseUrls = new Map<string, string>()
  // A resolver of its own, so a document read through a base URL is never served for the standard resolution.
  const viaBaseUrl = new DidResolver({
    fetchDidDocument: async (didUrl) => {
      const baseUrl = plainHttpBaseUrls.get(didUrl.host)
      // Unreachable by construction (only registry DIDs with a recorded base URL come here); refuse rather than guess.
      if (baseUrl === undefined) throw new Error(`no enrolled base URL for ${didUrl.host}`)
      const response = await deps.outbound.request(enrolledDocumentUrl(baseUrl, didUrl), {
        headers: { accept: 'application/did+json, application/json' },
        maxBodyBytes: MAX_DID_DOCUMENT_BYTES,
      })
      return { status: response.status, body: response.body }
    },
    clock: deps.now,
  })

  return (keyId, { forceRefresh, registry, historical = false }) => {
    if (!readsThroughBaseUrl(keyId, registry)) return deps.standard.resolveKey(keyId, { forceRefresh, historical })
    // Keyed as the resolver will ask: the host of the DID's standard document URL (default port dropped).
    const host = didWebToUrl(registryDidForAuthority(registry.authority)).host
    plainHttpBaseUrls.delete(host)
    plainHttpBaseUrls.set(host, registry.baseUrl)
    if (plainHttpBaseUrls.size > MAX_PLAIN_HTTP_REGISTRIES) {
      plainHttpBaseUrls.delete(plainHttpBaseUrls.keys().next().value as string)
    }
    return viaBaseUrl.resolveKey(keyId, { forceRefresh, historical })
  }
}

/** True when `keyId` is under the registry's own DID and the registry is enrolled with a plain-http base URL. */
export function readsThroughBaseUrl(keyId: string, registry: RegistryAddress): boolean {
  let baseUrl: URL
  try {
    baseUrl = new URL(registry.baseUrl)
  } catch {
    return false
  }
  if (baseUrl.protocol !== 'http:' || didOfKeyId(keyId) !== registryDidForAuthority(registry.authority)) return false
  try {
    didWebToUrl(registryDidForAuthority(registry.authority))
    return true
  } catch {
    return false // not a valid did:web: the standard resolver refuses it with its own reason
  }
}

/** The did:web document path (`/.well-known/did.json`) under the enrolled base URL, keeping its path prefix. */
function enrolledDocumentUrl(baseUrl: string, didUrl: URL): URL {
  const base = baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`
  return new URL(didUrl.pathname.slice(1), base)
}
