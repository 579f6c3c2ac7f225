/**
 * Where `acdp trace` reads each authority from. A `derived_from` walk follows `acdp://<authority>/…` references
 * chosen by whoever produced the bodies, so by default every authority is `https://<authority>` reached through
 * the SSRF-safe outbound client (public addresses only, HTTPS only, caps and deadlines; RFC-ACDP-0006 §7).
 *
 * The only exceptions are the authorities the USER mapped to a base URL: the root's authority to `--registry`
 * (the registry `acdp get` would ask, the transport the user already trusts for the root) and each
 * `--authority-url AUTHORITY=URL`. Those are read with the CLI's ordinary fetch — so a local or private registry
 * can be traced — and nothing else is: there is no silent http:// fallback for an authority nobody named.
 */
import { createOutboundClient, fetchThroughOutbound, type OutboundClient } from '@acdp/protocol'
import type { CliIo } from '../command.js'
import { usageError } from '../exit-codes.js'
import { checkBaseUrl } from '../commands/shared-options.js'

const AUTHORITY = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]*[a-z0-9])?)*$/

export interface WalkTransport {
  registryUrlOf(authority: string): string
  fetch: typeof globalThis.fetch
  close(): Promise<void>
}

/**
 * Parses `--authority-url AUTHORITY=URL` values.
 *
 * @throws CliError `usage` for a value that is not a bare lowercase hostname, `=`, an absolute http(s) URL.
 */
export function parseAuthorityUrls(values: readonly string[]): Map<string, string> {
  const mapped = new Map<string, string>()
  for (const value of values) {
    const split = value.indexOf('=')
    const authority = value.slice(0, Math.max(split, 0))
    if (split < 1 || !AUTHORITY.test(authority)) {
      throw usageError(`--authority-url must be AUTHORITY=URL with a bare lowercase hostname, got "${value}"`)
    }
    mapped.set(authority, checkBaseUrl('authority-url', value.slice(split + 1)) as string)
  }
  return mapped
}

/** The walk's transport over `mapped` (authority → base URL named by the user). */
export function createWalkTransport(
  io: Pick<CliIo, 'fetch' | 'signal' | 'outbound'>,
  mapped: ReadonlyMap<string, string>,
): WalkTransport {
  const trustedOrigins = new Set([...mapped.values()].map((url) => new URL(url).origin))
  let client: OutboundClient | undefined
  let outboundFetch: typeof globalThis.fetch | undefined
  return {
    registryUrlOf: (authority) => mapped.get(authority) ?? `https://${authority}`,
    fetch: async (input, init) => {
      const url = new URL(input instanceof Request ? input.url : String(input))
      if (trustedOrigins.has(url.origin)) return io.fetch(input, init)
      client ??= io.outbound ?? createOutboundClient({ allowCidrs: [], userAgent: 'acdp-cli' })
      outboundFetch ??= fetchThroughOutbound(client)
      return outboundFetch(input, init)
    },
    async close() {
      // An injected client belongs to the caller.
      if (client !== io.outbound) await client?.close()
    },
  }
}
