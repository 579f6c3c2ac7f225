/**
 * Producer key resolution (RFC-ACDP-0001 §5.11, §5.11.1) with the §5.11 caching rules.
 *
 * did:key resolves locally. did:web documents are fetched through an injected function (the
 * services back it with the SSRF-safe outbound client of RFC-ACDP-0008 §4.8), cached per DID, and
 * every failure is classified as permanent (`key_resolution_failed`, HTTP 400 at the servers) or
 * transient (`key_resolution_unreachable`, HTTP 502):
 *
 * | cause                                                           | class     |
 * | --------------------------------------------------------------- | --------- |
 * | malformed key_id / DID, method not allowed, did:key fragment     | permanent |
 * | HTTP 404 or 410                                                  | permanent |
 * | body over the cap, not UTF-8, not JSON, too deep, duplicate keys | permanent |
 * | document id ≠ DID, key absent, not in assertionMethod, bad key   | permanent |
 * | fetch threw ProtocolError `outbound_refused` (SSRF policy)       | permanent (RFC-ACDP-0008 §4.8 says MUST NOT be 502) |
 * | fetch threw ProtocolError `outbound_too_large`                   | permanent |
 * | any other HTTP status (3xx, other 4xx, 429, 5xx)                 | transient |
 * | fetch threw anything else (`outbound_failed`, timeout, DNS, TLS) | transient |
 */
import { isProtocolError, ProtocolError } from '../errors.js'
import { parseJsonStrict } from '../jcs/parse-json-strict.js'
import type { PublicKeyMaterial } from '../keys/public-key.js'
import { parseDidDocument } from './did-document.js'
import { parseDidKey } from './did-key.js'
import { didWebToUrl } from './did-web.js'
import { didMethodOf, splitKeyId } from './key-id.js'

/** DID documents are capped at 64 KB (RFC-ACDP-0006 §7.3, applied to DID resolution by RFC-ACDP-0008 §4.8). */
export const MAX_DID_DOCUMENT_BYTES = 64 * 1024
export const MIN_DID_CACHE_TTL_MS = 5 * 60_000
export const MAX_DID_CACHE_TTL_MS = 24 * 60 * 60_000
export const DEFAULT_DID_CACHE_TTL_MS = 60 * 60_000
export const DEFAULT_MIN_REFETCH_INTERVAL_MS = 60_000
export const DEFAULT_FAILURE_CACHE_MS = 5_000
export const DEFAULT_MAX_DID_ENTRIES = 10_000
const MAX_KEYS_PER_DOCUMENT = 32
const DOCUMENT_MAX_DEPTH = 32

export type DidMethod = 'key' | 'web'

/** Fetches a DID document URL. Resolves with the status and raw body; rejects on transport failure. */
export type FetchDidDocument = (url: URL) => Promise<{ status: number; body: Uint8Array }>

export type DidResolverOptions = {
  fetchDidDocument: FetchDidDocument
  /** Milliseconds clock; default `Date.now`. */
  clock?: () => number
  /** How long a fetched document is used; clamped to 5 min..24 h (§5.11 "Caching"). Default 1 h. */
  cacheTtlMs?: number
  /** Minimum spacing of fetches of one DID forced by `forceRefresh` (rate limit). Default 60 s. */
  minRefetchIntervalMs?: number
  /** How long a failed fetch is remembered and rethrown without fetching again. Default 5 s. */
  failureCacheMs?: number
  /** Maximum DIDs cached, for did:web documents and for decoded did:key keys each (least recently used evicted). Default 10 000. */
  maxEntries?: number
  /** DID methods accepted; default both. A registry not advertising did:key passes `['web']` (dk-003). */
  allowedMethods?: DidMethod[]
}

export type ResolvedKey = PublicKeyMaterial & { did: string; keyId: string }

type DocumentEntry = {
  document: unknown
  fetchedAt: number
  /** Last fetch attempt for this DID, successful or not: the forced-refresh rate limit. */
  lastAttemptAt: number
  keys: Map<string, ResolvedKey | ProtocolError>
}

/**
 * Resolves `signature.key_id` values to public keys, with per-DID document caching, coalescing of
 * concurrent fetches, a forced-refresh rate limit and a short failure cache. Safe to share.
 */
export class DidResolver {
  readonly #fetch: FetchDidDocument
  readonly #clock: () => number
  readonly #ttlMs: number
  readonly #minRefetchMs: number
  readonly #failureCacheMs: number
  readonly #maxEntries: number
  readonly #allowed: ReadonlySet<DidMethod>
  readonly #documents = new Map<string, DocumentEntry>()
  /**
   * Decoded did:key keys by DID, least recently used first. A did:key is its own key, so a successful decode
   * never goes stale; decoding and validating the point costs more than the signature check it serves.
   * Failures are not kept: junk identifiers must not evict real producers.
   */
  readonly #didKeys = new Map<string, PublicKeyMaterial>()
  readonly #failures = new Map<string, { error: ProtocolError; at: number }>()
  readonly #inflight = new Map<string, Promise<DocumentEntry>>()

  constructor(opts: DidResolverOptions) {
    if (typeof opts?.fetchDidDocument !== 'function') throw new TypeError('fetchDidDocument is required')
    this.#fetch = opts.fetchDidDocument
    this.#clock = opts.clock ?? Date.now
    const ttl = opts.cacheTtlMs ?? DEFAULT_DID_CACHE_TTL_MS
    this.#ttlMs = Math.min(MAX_DID_CACHE_TTL_MS, Math.max(MIN_DID_CACHE_TTL_MS, ttl))
    this.#minRefetchMs = nonNegative(
      opts.minRefetchIntervalMs ?? DEFAULT_MIN_REFETCH_INTERVAL_MS,
      'minRefetchIntervalMs',
    )
    this.#failureCacheMs = nonNegative(opts.failureCacheMs ?? DEFAULT_FAILURE_CACHE_MS, 'failureCacheMs')
    this.#maxEntries = opts.maxEntries ?? DEFAULT_MAX_DID_ENTRIES
    if (!Number.isInteger(this.#maxEntries) || this.#maxEntries < 1)
      throw new TypeError('maxEntries must be a positive integer')
    this.#allowed = new Set(opts.allowedMethods ?? ['key', 'web'])
  }

  /** How many decoded did:key keys are cached (bounded by `maxEntries`). */
  get cachedDidKeyCount(): number {
    return this.#didKeys.size
  }

  /** The effective (clamped) document cache lifetime. */
  get cacheTtlMs(): number {
    return this.#ttlMs
  }

  /**
   * Resolves a key_id (`did:web:…#frag` or `did:key:z…#z…`) to its public key.
   *
   * `forceRefresh` refetches the did:web document (use after a signature failure that could be a
   * key rotation, §5.11), at most once per `minRefetchIntervalMs` per DID; inside that window the
   * cached document is used. A failed forced refetch leaves the cached document in place and
   * throws the fetch's error.
   *
   * `historical` accepts a key listed only in `verificationMethod` (RFC-ACDP-0010 §10: a retired key verifies
   * signatures whose time a receipt attests; §9: retired receipt keys). Never use it to accept a NEW signature.
   *
   * @throws ProtocolError `key_resolution_failed` (permanent; details.reason says why, see
   *   `parseDidDocument` for document reasons) or `key_resolution_unreachable` (transient; details.reason
   *   `http_status` with details.status, or `transport_error`). Nothing else.
   */
  async resolveKey(keyId: string, opts: { forceRefresh?: boolean; historical?: boolean } = {}): Promise<ResolvedKey> {
    let did: string
    let fragment: string
    try {
      ;({ did, fragment } = splitKeyId(keyId))
    } catch (error) {
      throw asPermanent(error, 'invalid_key_id')
    }
    const method = didMethodOf(did)
    if (!(method === 'key' || method === 'web') || !this.#allowed.has(method)) {
      throw permanent(`DID method "${method}" is not accepted`, 'unsupported_did_method', { method })
    }
    if (method === 'key') return this.#resolveDidKey(did, fragment, keyId)
    const forced = opts.forceRefresh === true
    const { entry, refetchRefused } = await this.#documentFor(did, forced)
    try {
      return copy(this.#keyFromEntry(entry, did, keyId, opts.historical === true))
    } catch (error) {
      // The caller asked for a fresh document and the per-DID refetch limit answered from cache instead: the key's
      // absence is not confirmed by the current document, so the failure is transient (retry after the window).
      if (refetchRefused && isProtocolError(error) && error.code === 'key_resolution_failed') {
        throw transient(
          'DID document refetch is rate limited; key not in the cached document',
          'refetch_rate_limited',
          error,
        )
      }
      throw error
    }
  }

  #resolveDidKey(did: string, fragment: string, keyId: string): ResolvedKey {
    let key = this.#didKeys.get(did)
    if (key === undefined) {
      try {
        key = parseDidKey(did)
      } catch (error) {
        throw asPermanent(error, 'invalid_did')
      }
    }
    // §5.11.1 step 1: the fragment must byte-equal the method-specific identifier.
    if (fragment !== did.slice('did:key:'.length)) {
      throw permanent('did:key key_id fragment must equal the key identifier', 'fragment_mismatch')
    }
    this.#didKeys.delete(did)
    this.#didKeys.set(did, key)
    evictOldest(this.#didKeys, this.#maxEntries)
    return copy({ ...key, did, keyId })
  }

  /** The document of `did`; `refetchRefused` when a forced refresh was answered from cache by the rate limit. */
  async #documentFor(did: string, forceRefresh: boolean): Promise<{ entry: DocumentEntry; refetchRefused: boolean }> {
    const now = this.#clock()
    const cached = this.#documents.get(did)
    if (cached !== undefined && now - cached.fetchedAt < this.#ttlMs) {
      if (!forceRefresh || now - cached.lastAttemptAt < this.#minRefetchMs) {
        this.#touch(did, cached)
        return { entry: cached, refetchRefused: forceRefresh }
      }
    } else {
      const failure = this.#failures.get(did)
      if (failure !== undefined && now - failure.at < this.#failureCacheMs) throw failure.error
    }
    return { entry: await this.#fetchCoalesced(did), refetchRefused: false }
  }

  #fetchCoalesced(did: string): Promise<DocumentEntry> {
    const running = this.#inflight.get(did)
    if (running !== undefined) return running
    const started = this.#fetchDocument(did).finally(() => this.#inflight.delete(did))
    this.#inflight.set(did, started)
    return started
  }

  async #fetchDocument(did: string): Promise<DocumentEntry> {
    const attemptAt = this.#clock()
    const previous = this.#documents.get(did)
    if (previous !== undefined) previous.lastAttemptAt = attemptAt
    try {
      const document = await this.#download(did)
      const entry: DocumentEntry = { document, fetchedAt: this.#clock(), lastAttemptAt: attemptAt, keys: new Map() }
      this.#documents.delete(did)
      this.#documents.set(did, entry)
      evictOldest(this.#documents, this.#maxEntries)
      this.#failures.delete(did)
      return entry
    } catch (error) {
      const classified = isResolutionError(error)
        ? error
        : transient('DID document fetch failed', 'transport_error', error)
      // The previous document (if any) stays: a failed refetch never evicts a good key.
      this.#failures.delete(did)
      this.#failures.set(did, { error: classified, at: this.#clock() })
      evictOldest(this.#failures, this.#maxEntries)
      throw classified
    }
  }

  async #download(did: string): Promise<unknown> {
    let url: URL
    try {
      url = didWebToUrl(did)
    } catch (error) {
      throw asPermanent(error, 'invalid_did')
    }
    let response: { status: number; body: Uint8Array }
    try {
      response = await this.#fetch(url)
    } catch (error) {
      throw classifyThrown(error)
    }
    const { status, body } = response
    if (status === 404 || status === 410) throw permanent('DID document not found', 'document_not_found', { status })
    if (!(status >= 200 && status < 300))
      throw transient('DID document host answered an error status', 'http_status', undefined, { status })
    if (body.byteLength > MAX_DID_DOCUMENT_BYTES) throw permanent('DID document exceeds 64 KB', 'document_too_large')
    let document: unknown
    try {
      const text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false }).decode(body)
      document = parseJsonStrict(text, { maxDepth: DOCUMENT_MAX_DEPTH })
    } catch (error) {
      throw permanent('DID document is not valid JSON', 'invalid_json', {}, error)
    }
    if (typeof document !== 'object' || document === null || Array.isArray(document)) {
      throw permanent('DID document is not a JSON object', 'document_not_object')
    }
    if ((document as Record<string, unknown>)['id'] !== did) {
      throw permanent('DID document id does not equal the DID', 'document_id_mismatch')
    }
    return document
  }

  #keyFromEntry(entry: DocumentEntry, did: string, keyId: string, historical: boolean): ResolvedKey {
    // Historical lookups are memoized apart: the same key id may be retired (historical only) or current.
    const memoKey = historical ? `historical ${keyId}` : keyId
    const known = entry.keys.get(memoKey)
    if (known instanceof ProtocolError) throw known
    if (known !== undefined) return known
    let outcome: ResolvedKey | ProtocolError
    try {
      outcome = { ...parseDidDocument(entry.document, did, keyId, { historical }), did, keyId }
    } catch (error) {
      outcome = asPermanent(error, 'invalid_document')
    }
    // key_ids are attacker-chosen; bound the per-document memo.
    if (entry.keys.size >= MAX_KEYS_PER_DOCUMENT) entry.keys.clear()
    entry.keys.set(memoKey, outcome)
    if (outcome instanceof ProtocolError) throw outcome
    return outcome
  }

  #touch(did: string, entry: DocumentEntry): void {
    this.#documents.delete(did)
    this.#documents.set(did, entry)
  }
}

function classifyThrown(error: unknown): ProtocolError {
  if (isProtocolError(error) && error.code === 'outbound_refused') {
    // RFC-ACDP-0008 §4.8: a policy refusal is permanent and producer-caused; never 502.
    return permanent('DID document host refused by the outbound policy', 'outbound_refused', {}, error)
  }
  if (isProtocolError(error) && error.code === 'outbound_too_large') {
    return permanent('DID document exceeds the size cap', 'document_too_large', {}, error)
  }
  return transient('DID document could not be fetched', 'transport_error', error)
}

function isResolutionError(error: unknown): error is ProtocolError {
  return (
    isProtocolError(error) && (error.code === 'key_resolution_failed' || error.code === 'key_resolution_unreachable')
  )
}

function asPermanent(error: unknown, fallbackReason: string): ProtocolError {
  if (isProtocolError(error) && error.code === 'key_resolution_failed') return error
  const reason = isProtocolError(error) ? (error.details?.['reason'] ?? fallbackReason) : fallbackReason
  const message = error instanceof Error ? error.message : 'key resolution failed'
  return permanent(message, String(reason), {}, error)
}

function permanent(
  message: string,
  reason: string,
  extra: Record<string, unknown> = {},
  cause?: unknown,
): ProtocolError {
  return new ProtocolError('key_resolution_failed', message, {
    details: { reason, ...extra },
    ...(cause === undefined ? {} : { cause }),
  })
}

function transient(
  message: string,
  reason: string,
  cause?: unknown,
  extra: Record<string, unknown> = {},
): ProtocolError {
  return new ProtocolError('key_resolution_unreachable', message, {
    details: { reason, ...extra },
    ...(cause === undefined ? {} : { cause }),
  })
}

function copy(key: ResolvedKey): ResolvedKey {
  return { ...key, publicKey: new Uint8Array(key.publicKey) }
}

function evictOldest<K, V>(map: Map<K, V>, max: number): void {
  while (map.size > max) {
    const oldest = map.keys().next()
    if (oldest.done) return
    map.delete(oldest.value)
  }
}

function nonNegative(value: number, name: string): number {
  if (!Number.isFinite(value) || value < 0) throw new TypeError(`${name} must be a non-negative number`)
  return value
}
