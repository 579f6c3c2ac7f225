/**
 * The producer's key revocations for the inspector's `key_revocation` stage, found as `acdp get --verify` finds
 * them (RFC-ACDP-0014 §8, the protocol's own `findProducerRevocations`): the producer's `key-revocation` contexts
 * searched on the context's registry, each retrieved and verified in the browser before it may fail anything. The
 * registry is reached through the control plane — its search relayed with `registry=<authority>` (GET
 * /contexts/search) and each revocation through the federation proxy (GET /contexts/{ctx_id}) — so every answer is
 * the registry's own, re-checked here. Honest scope (§8): a registry can hide a revocation; absence proves nothing.
 */
import {
  findProducerRevocations,
  type KeyResolver,
  type RegistryAnswer,
  type RegistryJsonReader,
  type RevocationLookup,
} from '@acdp/protocol/verify'
import { type ApiClient, ApiError } from '../api/client.js'
import type { ContextSearchAnswer } from '../api/types.js'

/** The protocol's registry reader, answered by the control plane's relay of the registry `authority`. */
export function relayedRegistryReader(client: ApiClient, authority: string): RegistryJsonReader {
  return async (_registryUrl, path): Promise<RegistryAnswer> => {
    const url = new URL(path, 'http://registry.invalid')
    try {
      if (url.pathname === '/contexts/search') {
        const query = Object.fromEntries(url.searchParams)
        const answer = await client.get<ContextSearchAnswer>('/contexts/search', { ...query, registry: authority })
        const page = answer.registries.find((entry) => entry.authority === authority)
        if (page === undefined) return { status: 404, body: undefined }
        // The registry's own failure status (a registry without search answers 404/501: "not looked up").
        if (page.outcome !== 'ok') return { status: page.error?.status ?? 502, body: undefined }
        return { status: 200, body: { matches: page.matches } }
      }
      if (url.pathname.startsWith('/contexts/')) return { status: 200, body: await client.get<unknown>(url.pathname) }
      return { status: 404, body: undefined }
    } catch (error) {
      if (error instanceof ApiError) return { status: error.statusCode, body: undefined }
      throw error
    }
  }
}

/** The producer's verified revocations on `authority`'s registry, or why none were looked up (never throws). */
export async function lookUpRevocations(
  client: ApiClient,
  authority: string,
  agentId: string,
  resolver: KeyResolver,
): Promise<RevocationLookup> {
  try {
    return await findProducerRevocations(
      relayedRegistryReader(client, authority),
      authority,
      agentId,
      authority,
      resolver,
    )
  } catch (error) {
    return {
      revocations: undefined,
      note: `revocations not looked up (${error instanceof Error ? error.message : String(error)})`,
    }
  }
}
