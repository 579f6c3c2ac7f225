/**
 * The witness's reads from a registry (RFC-ACDP-0012 §8, RFC-ACDP-0007 §3), all through the SSRF-safe outbound
 * client: the capabilities document (cached), `GET /log/checkpoint` (bare checkpoint or the RFC-ACDP-0015 §6.1
 * envelope) and consistency-mode `GET /log/proof`.
 *
 * Every answer is attacker-controlled. This module only classifies it: transport trouble is a
 * {@link WitnessFetchFailure} (environmental: counted, never an alert), anything the registry actually said is
 * handed back for verification.
 */
import { isProtocolError, MAX_DID_DOCUMENT_BYTES, type OutboundClient, parseJsonStrict } from '@acdp/protocol'

/** The transparency-log profile a registry must advertise to be witnessed (RFC-ACDP-0012 §11). */
export const LOG_PROFILE = 'acdp-registry-transparency-log'

/** How long a capabilities verdict is reused before it is fetched again. */
const CAPABILITIES_TTL_MS = 10 * 60_000
/** Bound of the capabilities cache (one entry per polled registry). */
const MAX_CAPABILITIES_ENTRIES = 100_000
/** Checkpoint and proof bodies are a few hundred bytes to a few KB (log2(size) path hashes, cosignatures). */
const MAX_LOG_BODY_BYTES = 256 * 1024
const MAX_JSON_DEPTH = 16

/** An environmental failure: the registry could not be asked (never evidence of dishonesty). */
export class WitnessFetchFailure extends Error {
  override readonly name = 'WitnessFetchFailure'
  /** Low-cardinality category for the cursor and metrics (`transport`, `http_503`, `outbound_refused`…). */
  readonly category: string

  constructor(category: string, message: string, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause })
    this.category = category
  }
}

/** What the registry's capabilities say about its log. */
export interface LogCapabilities {
  advertisesLog: boolean
  /** `capabilities.registry_did`, when it is a string. */
  registryDid: string | undefined
  /** The advertised `profiles` that are strings (the console lists them), in the registry's order. */
  profiles: string[]
}

/** `GET /log/checkpoint` as answered: the checkpoint member and any aggregated cosignatures, both unverified. */
export interface FetchedCheckpoint {
  /** JSON value of the checkpoint (not yet parsed against its schema); `undefined` when the body is not JSON. */
  checkpoint: unknown
  /** `witness_signatures` of the envelope, `[]` when absent or not an array. */
  witnessSignatures: unknown[]
  /** Why the body is unusable before any schema check (not JSON, not an object), when it is. */
  malformed: string | undefined
}

/** Consistency-mode `/log/proof` as answered. */
export type FetchedConsistency =
  | { kind: 'proof'; body: unknown }
  /** The registry answered 4xx (refused to prove) or a body that is not JSON: evidence, per RFC-ACDP-0012 §8.2. */
  | { kind: 'refused'; status: number; malformed?: string }

export interface WitnessRegistryClient {
  capabilities(authority: string, baseUrl: string, signal: AbortSignal): Promise<LogCapabilities>
  checkpoint(baseUrl: string, signal: AbortSignal): Promise<FetchedCheckpoint>
  consistency(baseUrl: string, first: number, second: number, signal: AbortSignal): Promise<FetchedConsistency>
  /**
   * Inclusion-mode `GET /log/proof?ctx_id=…[&tree_size=…]` as answered (2xx body, unverified); a 404 (not logged or
   * not visible) is `undefined`.
   */
  inclusion(baseUrl: string, ctxId: string, treeSize: number | undefined, signal: AbortSignal): Promise<unknown>
  /** The did:web document at `url` (the registry's DID, RFC-ACDP-0010 §9), raw bytes, unverified. */
  didDocument(url: URL, signal: AbortSignal): Promise<Uint8Array>
}

/** Builds the client; `now` drives the capabilities cache. */
export function createWitnessRegistryClient(deps: {
  outbound: OutboundClient
  now: () => number
  requestTimeoutMs: number
}): WitnessRegistryClient {
  const cached = new Map<string, { value: LogCapabilities; at: number }>()

  async function get(url: URL, signal: AbortSignal, accept = 'application/acdp+json, application/json') {
    try {
      return await deps.outbound.request(url, {
        headers: { accept },
        maxBodyBytes: accept.startsWith('application/did') ? MAX_DID_DOCUMENT_BYTES : MAX_LOG_BODY_BYTES,
        totalTimeoutMs: deps.requestTimeoutMs,
        signal,
      })
    } catch (error) {
      const category = isProtocolError(error) ? String(error.details?.['reason'] ?? error.code) : 'transport'
      throw new WitnessFetchFailure(
        isProtocolError(error) && error.code === 'outbound_refused' ? 'outbound_refused' : category,
        `request to ${url.origin} failed`,
        error,
      )
    }
  }

  return {
    async capabilities(authority, baseUrl, signal) {
      const now = deps.now()
      const hit = cached.get(authority)
      if (hit !== undefined && now - hit.at < CAPABILITIES_TTL_MS) return hit.value
      const response = await get(endpoint(baseUrl, '.well-known/acdp.json'), signal)
      if (response.status < 200 || response.status > 299) {
        throw new WitnessFetchFailure(`http_${response.status}`, 'capabilities document not served')
      }
      const document = parseBody(response.body)
      if (!isObject(document)) throw new WitnessFetchFailure('capabilities_malformed', 'capabilities are not an object')
      const advertised = Array.isArray(document['profiles']) ? document['profiles'] : []
      const profiles = advertised.filter((profile): profile is string => typeof profile === 'string')
      const registryDid = typeof document['registry_did'] === 'string' ? document['registry_did'] : undefined
      const value = { advertisesLog: profiles.includes(LOG_PROFILE), registryDid, profiles }
      cached.delete(authority)
      cached.set(authority, { value, at: now })
      if (cached.size > MAX_CAPABILITIES_ENTRIES) cached.delete(cached.keys().next().value as string)
      return value
    },

    async checkpoint(baseUrl, signal) {
      const response = await get(endpoint(baseUrl, 'log/checkpoint'), signal)
      if (response.status < 200 || response.status > 299) {
        throw new WitnessFetchFailure(`http_${response.status}`, 'checkpoint not served')
      }
      const body = parseBody(response.body)
      if (body === undefined) return { checkpoint: undefined, witnessSignatures: [], malformed: 'not_json' }
      if (!isObject(body)) return { checkpoint: body, witnessSignatures: [], malformed: undefined }
      // RFC-ACDP-0015 §6.1: a registry aggregating cosignatures wraps the closed checkpoint in an envelope.
      if ('log_checkpoint' in body) {
        const signatures = body['witness_signatures']
        return {
          checkpoint: body['log_checkpoint'],
          witnessSignatures: Array.isArray(signatures) ? signatures : [],
          malformed: undefined,
        }
      }
      return { checkpoint: body, witnessSignatures: [], malformed: undefined }
    },

    async consistency(baseUrl, first, second, signal) {
      const url = endpoint(baseUrl, 'log/proof')
      url.searchParams.set('first', String(first))
      url.searchParams.set('second', String(second))
      const response = await get(url, signal)
      // 5xx and 429 may be passing trouble; a 4xx on a range the registry itself committed to is a refusal.
      if (response.status >= 500 || response.status === 429) {
        throw new WitnessFetchFailure(`http_${response.status}`, 'consistency proof not served')
      }
      if (response.status < 200 || response.status > 299) return { kind: 'refused', status: response.status }
      const body = parseBody(response.body)
      if (body === undefined) return { kind: 'refused', status: response.status, malformed: 'not_json' }
      return { kind: 'proof', body }
    },

    async inclusion(baseUrl, ctxId, treeSize, signal) {
      const url = endpoint(baseUrl, 'log/proof')
      url.searchParams.set('ctx_id', ctxId)
      if (treeSize !== undefined) url.searchParams.set('tree_size', String(treeSize))
      const response = await get(url, signal)
      if (response.status === 404) return undefined
      if (response.status < 200 || response.status > 299) {
        throw new WitnessFetchFailure(`http_${response.status}`, 'inclusion proof not served')
      }
      const body = parseBody(response.body)
      if (body === undefined) throw new WitnessFetchFailure('proof_malformed', 'the inclusion proof is not JSON')
      return body
    },

    async didDocument(url, signal) {
      const response = await get(url, signal, 'application/did+json, application/json')
      if (response.status < 200 || response.status > 299) {
        throw new WitnessFetchFailure(`http_${response.status}`, 'DID document not served')
      }
      return response.body
    },
  }
}

/** `<baseUrl>/<path>`, keeping any path prefix of the base URL. */
function endpoint(baseUrl: string, path: string): URL {
  const base = baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`
  return new URL(path, base)
}

/** Strict JSON (duplicate keys refused), or undefined. Attacker-controlled bytes. */
function parseBody(bytes: Uint8Array): unknown {
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(bytes)
    return parseJsonStrict(text, { maxDepth: MAX_JSON_DEPTH })
  } catch {
    return undefined
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
