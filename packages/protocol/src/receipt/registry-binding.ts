/**
 * Authority binding shared by every registry-signed object: RFC-ACDP-0010 §4 and §8 step 2 (receipts),
 * RFC-ACDP-0011 §7 step 3 (head receipts), RFC-ACDP-0012 §9.3 step 3 (checkpoints). A signed object is only
 * evidence about the registry that served it; without these checks a hostile registry could replay another
 * registry's perfectly signed objects as its own (fixtures rcpt-004, lhr-003, fed-006).
 */
import { splitKeyId } from '../did/index.js'
import { isProtocolError, ProtocolError } from '../errors.js'

/**
 * The `did:web` DID of a registry serving at `authority` (`host` or `host:port`, as in the request URL):
 * `did:web:<host>` with a port percent-encoded as `%3A` (did:web method spec). Lowercased: hosts are
 * case-insensitive. Throws `TypeError` for an empty authority (caller misuse).
 */
export function registryDidForAuthority(authority: string): string {
  if (typeof authority !== 'string' || authority.length === 0)
    throw new TypeError('authority must be a non-empty string')
  return `did:web:${authority.toLowerCase().replace(':', '%3A')}`
}

/**
 * The DID portion of a `signature.key_id` (RFC-ACDP-0001 §5.11 step 1), or `undefined` when the key id is
 * not a `did#fragment` DID URL — which then matches no expected DID, failing the binding check.
 */
export function didOfKeyId(keyId: string): string | undefined {
  try {
    return splitKeyId(keyId).did
  } catch (error) {
    if (isProtocolError(error)) return undefined
    throw error
  }
}

/**
 * The host a `did:web:<host>[%3A<port>]` registry DID names, lowercased, port removed — what `origin_registry`
 * and `ctx_id` authorities (bare hostnames) must equal. `undefined` for anything that is not a bare did:web
 * authority DID (a path component, another method).
 */
export function hostOfRegistryDid(registryDid: string): string | undefined {
  const match = /^did:web:([A-Za-z0-9.-]+)(?:%3[Aa]\d{1,5})?$/.exec(registryDid)
  return match?.[1]?.toLowerCase()
}

/** The authority of `acdp://<authority>/<uuid>`, or `undefined` when `ctxId` does not have that form. */
export function authorityOfCtxId(ctxId: string): string | undefined {
  const match = /^acdp:\/\/([^/]+)\//.exec(ctxId)
  return match?.[1]
}

/** What {@link assertRegistryBinding} compares. All strings are attacker-controlled except `authority`. */
export interface RegistryBindingInput {
  /** `registry_did` of a receipt or head receipt, or the DID embedded in a checkpoint's `log_id`. */
  readonly registryDid: string
  /** `signature.key_id` of the object. */
  readonly keyId: string
  /** The authority the object was fetched from (`host` or `host:port`). */
  readonly authority: string
  /** `capabilities.registry_did`, when the caller has it (RFC-ACDP-0011 §7 step 3 requires both to agree). */
  readonly capabilitiesRegistryDid?: string | undefined
}

/**
 * Checks that `registryDid` is `did:web:<authority>` for the serving authority (and equals
 * `capabilities.registry_did` when given), and that the DID portion of `keyId` is that same DID.
 *
 * Throws ProtocolError `verification_failed` with `details.reason` one of `registry_did_not_did_web`,
 * `registry_did_mismatch`, `capabilities_registry_did_mismatch`, `key_id_not_under_registry_did`.
 */
export function assertRegistryBinding(input: RegistryBindingInput): void {
  const { registryDid, keyId, authority, capabilitiesRegistryDid } = input
  if (hostOfRegistryDid(registryDid) === undefined) {
    fail('registry_did_not_did_web', 'registry DID must be did:web:<authority>')
  }
  const expected = registryDidForAuthority(authority)
  if (registryDid.toLowerCase() !== expected.toLowerCase()) {
    fail('registry_did_mismatch', 'registry DID does not name the serving authority', {
      expected_registry_did: expected,
    })
  }
  if (capabilitiesRegistryDid !== undefined && registryDid.toLowerCase() !== capabilitiesRegistryDid.toLowerCase()) {
    fail('capabilities_registry_did_mismatch', 'registry DID differs from capabilities.registry_did')
  }
  if (didOfKeyId(keyId) !== registryDid) {
    fail('key_id_not_under_registry_did', 'signature.key_id is not a DID URL under the registry DID')
  }
}

function fail(reason: string, message: string, details: Record<string, unknown> = {}): never {
  throw new ProtocolError('verification_failed', message, { details: { reason, ...details } })
}
