/**
 * DID URL handling for `signature.key_id` (RFC-ACDP-0001 §5.11 step 1).
 */
import { ProtocolError } from '../errors.js'

/** Longest DID or key_id accepted (acdp-common.schema.json caps DIDs at 2048 characters). */
export const MAX_DID_LENGTH = 2048

const DID_SYNTAX = /^did:[a-z0-9]+:[A-Za-z0-9._:%-]+$/
// RFC 3986 fragment characters (pchar / "/" / "?"), without "#".
const FRAGMENT_SYNTAX = /^[A-Za-z0-9._~:@!$&'()*+,;=/?%-]+$/

/**
 * Splits a key_id (a DID URL) into the DID and the fragment. The fragment is required; DID URLs with
 * a path or query before the fragment are not key identifiers in ACDP and are refused.
 *
 * @throws ProtocolError `invalid_did` (details.reason: `missing_fragment`, `empty_fragment`,
 *   `invalid_fragment`, `invalid_did_syntax`, `too_long`). Servers answer key_resolution_failed.
 */
export function splitKeyId(keyId: string): { did: string; fragment: string } {
  if (typeof keyId !== 'string') throw invalidDid('key_id must be a string', 'invalid_did_syntax')
  if (keyId.length > MAX_DID_LENGTH) throw invalidDid('key_id is too long', 'too_long')
  const hash = keyId.indexOf('#')
  if (hash < 0) throw invalidDid('key_id has no fragment', 'missing_fragment')
  const did = keyId.slice(0, hash)
  const fragment = keyId.slice(hash + 1)
  if (fragment.length === 0) throw invalidDid('key_id has an empty fragment', 'empty_fragment')
  if (!FRAGMENT_SYNTAX.test(fragment)) throw invalidDid('key_id fragment has invalid characters', 'invalid_fragment')
  assertDidSyntax(did)
  return { did, fragment }
}

/**
 * Checks the plain DID grammar used by ACDP (`did:<method>:<method-specific-id>`, no path, query or
 * fragment).
 *
 * @throws ProtocolError `invalid_did` (details.reason `invalid_did_syntax` or `too_long`).
 */
export function assertDidSyntax(did: string): void {
  if (typeof did !== 'string') throw invalidDid('DID must be a string', 'invalid_did_syntax')
  if (did.length > MAX_DID_LENGTH) throw invalidDid('DID is too long', 'too_long')
  if (!DID_SYNTAX.test(did)) throw invalidDid('not a DID', 'invalid_did_syntax')
}

/** The method name of a syntactically valid DID (`web` for `did:web:…`). */
export function didMethodOf(did: string): string {
  return did.slice(4, did.indexOf(':', 4))
}

export function invalidDid(message: string, reason: string, extra: Record<string, unknown> = {}): ProtocolError {
  return new ProtocolError('invalid_did', message, { details: { reason, ...extra } })
}
