/**
 * What a consumer needs to check an enrolled registry's evidence itself (the console verifies in the browser):
 * the registry's advertised profiles (`/.well-known/acdp.json`), its DID document (receipt and checkpoint keys,
 * RFC-ACDP-0010 §9) and a context's log inclusion proof with the witness cosignatures of the checkpoint it is
 * proven under (RFC-ACDP-0012 §8, RFC-ACDP-0015 §6.1).
 *
 * Everything is read through the witness's registry client (the SSRF-safe outbound client, bounded bodies) and
 * relayed unverified: the reader verifies. Only the caller's tenant's enabled enrollments with a base URL are
 * asked; any other authority is 404, whether it exists for another tenant or not. The registry DID is the
 * enrollment's, else the advertised one, and must be a did:web on the enrolled authority itself — the relay never
 * fetches a document from any other host.
 */
import { didWebToUrl } from '@acdp/protocol'
import type { LogEvidence, RegistryCapabilities, RegistryDidDocument } from '../response-schemas/registries.js'
import { ControlPlaneError } from '../core/errors.js'
import { enrolledBaseUrl } from './enrolled-base-url.js'
import type { EnrollmentDirectory } from './enrollment-directory.js'
import { WitnessFetchFailure, type WitnessRegistryClient } from '../witness/witness-registry-client.js'

/** DID documents change on key rotation only; a minute keeps the console's inspections from refetching. */
const DID_DOCUMENT_TTL_MS = 60_000
const MAX_CACHED_DOCUMENTS = 10_000
const REQUEST_TIMEOUT_MS = 10_000

export type { LogEvidence, RegistryCapabilities, RegistryDidDocument }

export interface RegistryTrust {
  profiles(tenantId: string, authority: string): Promise<RegistryCapabilities>
  didDocument(tenantId: string, authority: string): Promise<RegistryDidDocument>
  logEvidence(tenantId: string, authority: string, ctxId: string): Promise<LogEvidence>
}

export function createRegistryTrust(deps: {
  client: WitnessRegistryClient
  enrollments: Pick<EnrollmentDirectory, 'get'>
  now: () => number
}): RegistryTrust {
  const documents = new Map<string, { value: RegistryDidDocument; at: number }>()

  async function enrolled(tenantId: string, authority: string): Promise<{ baseUrl: string }> {
    const key = authority.toLowerCase()
    const baseUrl = await enrolledBaseUrl(deps.enrollments, tenantId, key)
    if (baseUrl === undefined) {
      throw new ControlPlaneError(
        'REGISTRY_NOT_FOUND',
        'no enabled enrolled registry with a base URL serves this authority',
      )
    }
    return { baseUrl }
  }

  async function upstream<T>(work: (signal: AbortSignal) => Promise<T>): Promise<T> {
    try {
      return await work(AbortSignal.timeout(REQUEST_TIMEOUT_MS))
    } catch (error) {
      if (error instanceof ControlPlaneError) throw error
      const category = error instanceof WitnessFetchFailure ? error.category : 'transport'
      throw new ControlPlaneError('FEDERATION_UPSTREAM_ERROR', `the registry could not be read (${category})`, {
        cause: error,
      })
    }
  }

  async function profiles(tenantId: string, authority: string): Promise<RegistryCapabilities> {
    const { baseUrl } = await enrolled(tenantId, authority)
    const capabilities = await upstream((signal) => deps.client.capabilities(authority.toLowerCase(), baseUrl, signal))
    return {
      authority: authority.toLowerCase(),
      registryDid: capabilities.registryDid ?? null,
      profiles: capabilities.profiles,
    }
  }

  return {
    profiles,

    async didDocument(tenantId, authority) {
      const { baseUrl } = await enrolled(tenantId, authority)
      const { registryDid } = await profiles(tenantId, authority)
      const url = registryDidUrl(registryDid, authority.toLowerCase(), baseUrl)
      const cacheKey = `${tenantId}\u0000${registryDid}`
      const hit = documents.get(cacheKey)
      if (hit !== undefined && deps.now() - hit.at < DID_DOCUMENT_TTL_MS) return hit.value
      const bytes = await upstream((signal) => deps.client.didDocument(url, signal))
      let document: string
      try {
        document = new TextDecoder('utf-8', { fatal: true }).decode(bytes)
      } catch (error) {
        throw new ControlPlaneError('FEDERATION_UPSTREAM_ERROR', 'the DID document is not UTF-8', { cause: error })
      }
      const value = { did: registryDid as string, document }
      documents.delete(cacheKey)
      documents.set(cacheKey, { value, at: deps.now() })
      if (documents.size > MAX_CACHED_DOCUMENTS) documents.delete(documents.keys().next().value as string)
      return value
    },

    async logEvidence(tenantId, authority, ctxId) {
      const { baseUrl } = await enrolled(tenantId, authority)
      const capabilities = await upstream((signal) =>
        deps.client.capabilities(authority.toLowerCase(), baseUrl, signal),
      )
      if (!capabilities.advertisesLog) return { log_inclusion: null, witness_signatures: null }
      // Prove under the checkpoint the cosignatures cover, so the reader can check both against one tree head.
      const head = await upstream((signal) => deps.client.checkpoint(baseUrl, signal))
      const treeSize = treeSizeOf(head.checkpoint)
      const inclusion = await upstream((signal) => deps.client.inclusion(baseUrl, ctxId, treeSize, signal))
      if (inclusion === undefined) return { log_inclusion: null, witness_signatures: null }
      return {
        log_inclusion: inclusion,
        witness_signatures: treeSize !== undefined && head.witnessSignatures.length > 0 ? head.witnessSignatures : null,
      }
    },
  }
}

/**
 * Where the registry's did:web document is read: the did:web path, under the enrolled base URL — the operator's
 * address for that authority, the same one the federation proxy and the witness use — and only when the DID
 * names the enrolled authority itself (RFC-ACDP-0010 §4: `registry_did` host = the registry's authority).
 */
function registryDidUrl(did: string | null, authority: string, baseUrl: string): URL {
  if (did === null || !did.startsWith('did:web:')) {
    throw new ControlPlaneError('REGISTRY_NOT_FOUND', 'the registry advertises no did:web registry DID')
  }
  let url: URL
  try {
    url = didWebToUrl(did)
  } catch (error) {
    throw new ControlPlaneError('FEDERATION_UPSTREAM_ERROR', 'the registry DID is not a valid did:web', {
      cause: error,
    })
  }
  if (url.host.toLowerCase() !== authority) {
    throw new ControlPlaneError('FEDERATION_UPSTREAM_ERROR', 'the registry DID does not name the enrolled authority')
  }
  const base = baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`
  return new URL(url.pathname.slice(1), base)
}

function treeSizeOf(checkpoint: unknown): number | undefined {
  if (typeof checkpoint !== 'object' || checkpoint === null) return undefined
  const size = (checkpoint as Record<string, unknown>)['tree_size']
  return typeof size === 'number' && Number.isSafeInteger(size) && size > 0 ? size : undefined
}
