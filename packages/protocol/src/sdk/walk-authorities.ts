/**
 * Per-walk knowledge of the registries a `derived_from` walk touches (RFC-ACDP-0006 §4.1 steps 2–3): each
 * authority's `/.well-known/acdp.json` is fetched once per walk (§4.1 step 7: intra-walk caching only, never
 * across walks), must be a capabilities document, and its `registry_did` must be exactly `did:web:<authority>`
 * (no port, no path; a did:key names no authority); on mismatch every reference to the authority is unresolvable (§4.1 step 3).
 */
import { isProtocolError } from '../errors.js'
import { parseJsonStrict } from '../jcs/parse-json-strict.js'
import { registryDidForAuthority } from '../receipt/registry-binding.js'
import { CapabilitiesDocument } from '../wire/capabilities.js'
import { compiledValidator } from '../wire/compiled-validator.js'
import { registryEndpoint, type SdkRequestOptions, sendRegistryRequest } from './registry-http.js'

/** RFC-ACDP-0006 §7.3: capabilities documents are capped at 64 KB. */
const CAPABILITIES_MAX_BYTES = 64 * 1024

/** An authority the walk may read from, or why it may not. */
export type AuthorityCheck =
  | { ok: true; registryDid: string }
  | { ok: false; reason: 'capabilities_unavailable' | 'capabilities_invalid' | 'registry_did_mismatch'; detail: string }

/** One walk's cache: a promise per authority, so concurrent references to one registry share one fetch. */
export class WalkAuthorities {
  readonly #checks = new Map<string, Promise<AuthorityCheck>>()

  constructor(
    private readonly baseUrlOf: (authority: string) => string,
    private readonly request: SdkRequestOptions,
  ) {}

  /** How many authorities were looked up (each fetched once). */
  get size(): number {
    return this.#checks.size
  }

  /** Checks `authority` once per walk. Transport errors are rethrown (the walk decides: abort or unresolvable). */
  check(authority: string): Promise<AuthorityCheck> {
    let pending = this.#checks.get(authority)
    if (pending === undefined) {
      pending = this.#fetchAndCheck(authority)
      this.#checks.set(authority, pending)
    }
    return pending
  }

  async #fetchAndCheck(authority: string): Promise<AuthorityCheck> {
    const url = registryEndpoint(this.baseUrlOf(authority), '/.well-known/acdp.json')
    const response = await sendRegistryRequest(url, { headers: { accept: 'application/json' } }, this.request)
    if (response.status !== 200) {
      return { ok: false, reason: 'capabilities_unavailable', detail: `${url} answered HTTP ${response.status}` }
    }
    if (new TextEncoder().encode(response.text).byteLength > CAPABILITIES_MAX_BYTES) {
      return { ok: false, reason: 'capabilities_invalid', detail: `${url} exceeds ${CAPABILITIES_MAX_BYTES} bytes` }
    }
    let document: unknown
    try {
      document = parseJsonStrict(response.text)
    } catch (error) {
      const why = isProtocolError(error) ? error.code : 'not JSON'
      return { ok: false, reason: 'capabilities_invalid', detail: `${url} is not strict JSON (${why})` }
    }
    if (!compiledValidator(CapabilitiesDocument).Check(document)) {
      return { ok: false, reason: 'capabilities_invalid', detail: `${url} is not a capabilities document` }
    }
    const registryDid = (document as CapabilitiesDocument).registry_did
    // Exactly did:web:<authority>: the authority is a bare hostname reached on the HTTPS default port
    // (RFC-ACDP-0002 §3.1), so a DID with a %3A port or a path names another endpoint and does not bind.
    const expected = registryDidForAuthority(authority)
    if (registryDid.toLowerCase() !== expected) {
      return {
        ok: false,
        reason: 'registry_did_mismatch',
        detail: `${url} declares registry_did ${registryDid}, not ${expected}`,
      }
    }
    return { ok: true, registryDid }
  }
}
