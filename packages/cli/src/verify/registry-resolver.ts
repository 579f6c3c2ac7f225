/**
 * The DID resolver of the CLI's verifying commands. did:key is decoded locally; producers' (and witnesses')
 * did:web documents are fetched over HTTPS through the SSRF-safe outbound client (public addresses only, 64 KB).
 * The one exception is the DID of the registry being asked (`did:web:<its authority>`): its document is read from
 * the registry URL the user gave (`<registry>/.well-known/did.json`), the same transport the user already trusts
 * for the context itself — so a local or private registry can be verified too. The document must still carry
 * exactly that DID as its `id` (the resolver refuses anything else).
 */
import { createOutboundClient, DidResolver, MAX_DID_DOCUMENT_BYTES, type OutboundClient } from '@acdp/protocol'
import type { CliIo } from '../command.js'

export interface CliResolver {
  resolver: DidResolver
  close(): Promise<void>
}

/**
 * @param registryUrl the base URL the user named (`--registry`).
 * @param registryAuthority the authority whose DID document is read from `registryUrl` (the ctx_id's authority,
 *   or the host named by the registry's `registry_did`).
 */
export function createCliResolver(
  io: Pick<CliIo, 'fetch' | 'signal' | 'outbound'>,
  registryUrl: string,
  registryAuthority: string | undefined,
): CliResolver {
  let client: OutboundClient | undefined
  const registryDocumentUrl = new URL(
    '/.well-known/did.json',
    registryUrl.endsWith('/') ? registryUrl : `${registryUrl}/`,
  )
  const resolver = new DidResolver({
    fetchDidDocument: async (url) => {
      if (registryAuthority !== undefined && url.href === `https://${registryAuthority}/.well-known/did.json`) {
        const response = await io.fetch(registryDocumentUrl, {
          headers: { accept: 'application/did+json, application/json' },
          signal: AbortSignal.any([io.signal, AbortSignal.timeout(10_000)]),
        })
        const body = new Uint8Array(await response.arrayBuffer())
        return {
          status: response.status,
          body: body.byteLength > MAX_DID_DOCUMENT_BYTES ? new Uint8Array(MAX_DID_DOCUMENT_BYTES + 1) : body,
        }
      }
      client ??= io.outbound ?? createOutboundClient({ allowCidrs: [], userAgent: 'acdp-cli' })
      const response = await client.request(url, { maxBodyBytes: MAX_DID_DOCUMENT_BYTES })
      return { status: response.status, body: response.body }
    },
  })
  return {
    resolver,
    async close() {
      // An injected client belongs to the caller.
      if (client !== io.outbound) await client?.close()
    },
  }
}
