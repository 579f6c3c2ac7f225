/**
 * How the tools reach the outside world. Only the URLs the operator configured (the registry, the control plane)
 * are read with an ordinary fetch — so a local or private stack can be used. Everything chosen by data or by the
 * MCP client — another `acdp://` authority, a `derived_from` reference, a producer's did:web document — goes
 * through the SSRF-safe outbound client: public addresses only, HTTPS only, pinned DNS, same-authority redirects,
 * capped bodies (RFC-ACDP-0006 §7). There is no http:// fallback for an authority nobody named.
 */
import {
  createOutboundClient,
  DidResolver,
  fetchThroughOutbound,
  hostOfRegistryDid,
  MAX_DID_DOCUMENT_BYTES,
  type OutboundClient,
} from '@acdp/protocol'
import type { AcdpMcpConfig } from './config.js'

export interface StackAccess {
  registryUrl: string
  /** The configured registry's authority (from config, else its capabilities' registry_did); undefined if unknown. */
  registryAuthority(signal: AbortSignal): Promise<string | undefined>
  /** The registry to ask for `authority`: the configured one for its own authority, else `https://<authority>`. */
  registryUrlOf(authority: string, ownAuthority: string | undefined): string
  /** fetch for every read: configured origins directly, anything else through the outbound client. */
  fetch: typeof globalThis.fetch
  /** The key resolver for a verification of a context served under `ownAuthority`'s registry. */
  resolver(ownAuthority: string | undefined): DidResolver
  close(): Promise<void>
}

export function createStackAccess(config: AcdpMcpConfig): StackAccess {
  const registryUrl = config.registryUrl.replace(/\/+$/, '')
  const directFetch = config.fetch ?? globalThis.fetch
  const trustedOrigins = new Set([registryUrl, ...(config.controlPlane ? [config.controlPlane.baseUrl] : [])])
  const origins = new Set([...trustedOrigins].map((url) => new URL(url).origin))
  let client: OutboundClient | undefined
  let outboundFetch: typeof globalThis.fetch | undefined
  const outbound = (): OutboundClient =>
    (client ??= config.outbound ?? createOutboundClient({ allowCidrs: [], userAgent: 'acdp-mcp' }))
  let authority: Promise<string | undefined> | undefined =
    config.registryAuthority === undefined ? undefined : Promise.resolve(config.registryAuthority)

  const fetch: typeof globalThis.fetch = (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input))
    if (origins.has(url.origin)) return directFetch(input, init)
    outboundFetch ??= fetchThroughOutbound(outbound())
    return outboundFetch(input, init)
  }

  return {
    registryUrl,
    registryAuthority(signal) {
      authority ??= learnAuthority(directFetch, registryUrl, signal).catch(() => {
        authority = undefined // a failed read is retried by the next call
        return undefined
      })
      return authority
    },
    registryUrlOf: (wanted, own) => (own !== undefined && wanted === own ? registryUrl : `https://${wanted}`),
    fetch,
    resolver(own) {
      return new DidResolver({
        fetchDidDocument: async (url) => {
          // The configured registry's own DID document is read from the URL the operator gave.
          const response =
            own !== undefined && url.href === `https://${own}/.well-known/did.json`
              ? await directFetch(`${registryUrl}/.well-known/did.json`, {
                  headers: { accept: 'application/did+json, application/json' },
                  signal: AbortSignal.timeout(10_000),
                })
              : undefined
          if (response !== undefined) {
            const body = new Uint8Array(await response.arrayBuffer())
            const capped = body.byteLength > MAX_DID_DOCUMENT_BYTES ? new Uint8Array(MAX_DID_DOCUMENT_BYTES + 1) : body
            return { status: response.status, body: capped }
          }
          const answer = await outbound().request(url, { maxBodyBytes: MAX_DID_DOCUMENT_BYTES })
          return { status: answer.status, body: answer.body }
        },
      })
    },
    async close() {
      // An injected client belongs to the caller.
      if (client !== undefined && client !== config.outbound) await client.close()
    },
  }
}

async function learnAuthority(
  fetch: typeof globalThis.fetch,
  registryUrl: string,
  signal: AbortSignal,
): Promise<string | undefined> {
  const response = await fetch(`${registryUrl}/.well-known/acdp.json`, {
    headers: { accept: 'application/json' },
    signal: AbortSignal.any([signal, AbortSignal.timeout(10_000)]),
  })
  if (!response.ok) return undefined
  const document = (await response.json()) as { registry_did?: unknown }
  return typeof document.registry_did === 'string' ? hostOfRegistryDid(document.registry_did) : undefined
}
