/**
 * Key extraction from a did:web DID document (RFC-ACDP-0001 §5.11 steps 4–6;
 * registries/signature-algorithms.md "Producer DID document for ecdsa-p256").
 */
import { isProtocolError, ProtocolError } from '../errors.js'
import { normalizePublicKey, type PublicKeyMaterial } from '../keys/public-key.js'
import type { SignatureAlgorithm } from '../signature/algorithm.js'
import { decodeMultibaseKey } from './did-key.js'
import { splitKeyId } from './key-id.js'

/**
 * Verification-method types and the algorithms each may carry. RFC-ACDP-0001 §5.11 step 6 names
 * `Ed25519VerificationKey2020` (ed25519) and `JsonWebKey2020` (either). `Ed25519VerificationKey2018`
 * and `Multikey` describe the same raw Ed25519 key and are accepted for it. P-256 is accepted only
 * as `JsonWebKey2020` with an uncompressed JWK: signature-algorithms.md calls
 * `EcdsaSecp256r1VerificationKey2019` NON-CONFORMANT and forbids compressed/multibase P-256 keys.
 */
export const VERIFICATION_METHOD_ALGORITHMS: Readonly<Record<string, readonly SignatureAlgorithm[]>> = {
  Ed25519VerificationKey2020: ['ed25519'],
  Ed25519VerificationKey2018: ['ed25519'],
  Multikey: ['ed25519'],
  JsonWebKey2020: ['ed25519', 'ecdsa-p256'],
}

type Json = Record<string, unknown>

/**
 * Finds the verification method named by `keyId` in a fetched DID document and returns its key.
 * Attacker-controlled input (the document comes from the producer's host).
 *
 * Rules: the document `id` must equal `did`; `keyId`'s DID must equal `did`; the method is matched
 * by exact absolute id (`did#frag`) or relative id (`#frag`), in `verificationMethod` or embedded
 * in `assertionMethod`, and must be unique; it must be authorized by `assertionMethod` (reference by
 * absolute or relative id, or embedded) — unless `options.historical`, where presence in `verificationMethod`
 * suffices (RFC-ACDP-0010 §10 historical verification; retired receipt keys, §9); its `controller`, when present, must equal `did`; its
 * `type` must fit the key's algorithm ({@link VERIFICATION_METHOD_ALGORITHMS}); it must carry
 * exactly one of `publicKeyJwk` (OKP/Ed25519 or EC/P-256 with both 32-byte coordinates, no `d`) or
 * `publicKeyMultibase` (Ed25519 only); the key must be valid (on curve, not small order).
 *
 * @throws ProtocolError `key_resolution_failed` with details.reason one of: `invalid_key_id`,
 *   `document_not_object`, `document_id_mismatch`, `key_id_did_mismatch`, `invalid_document`,
 *   `verification_method_not_found`, `duplicate_verification_method`, `not_in_assertion_method`,
 *   `controller_mismatch`, `unsupported_verification_method_type`, `key_type_mismatch`,
 *   `missing_key_material`, `ambiguous_key_material`, `private_key_in_document`, `invalid_jwk`,
 *   `unsupported_key_type`, `unsupported_key_encoding`, `invalid_multibase_key`, `invalid_public_key`.
 *   Servers map `not_in_assertion_method` to key_not_authorized and `key_type_mismatch` to
 *   invalid_signature (§5.11 steps 5–6); every other reason to key_resolution_failed.
 */
export function parseDidDocument(
  document: unknown,
  did: string,
  keyId: string,
  options: { historical?: boolean } = {},
): PublicKeyMaterial {
  let fragment: string
  try {
    const split = splitKeyId(keyId)
    if (split.did !== did) throw failed('key_id does not belong to this DID', 'key_id_did_mismatch')
    fragment = split.fragment
  } catch (error) {
    if (isProtocolError(error) && error.code === 'key_resolution_failed') throw error
    throw failed('key_id is not a valid DID URL', 'invalid_key_id', error)
  }
  if (!isObject(document)) throw failed('DID document is not a JSON object', 'document_not_object')
  if (document['id'] !== did) throw failed('DID document id does not equal the DID', 'document_id_mismatch')

  const relativeId = `#${fragment}`
  const matches = (id: unknown) => id === keyId || id === relativeId
  const listed = optionalArray(document, 'verificationMethod')
  const authorizations = optionalArray(document, 'assertionMethod')

  const candidates: Json[] = []
  for (const entry of listed) if (isObject(entry) && matches(entry['id'])) candidates.push(entry)
  let embeddedInAssertion = false
  for (const entry of authorizations) {
    if (isObject(entry) && matches(entry['id'])) {
      candidates.push(entry)
      embeddedInAssertion = true
    }
  }
  if (candidates.length === 0)
    throw failed('no verification method matches the key_id', 'verification_method_not_found')
  if (candidates.length > 1)
    throw failed('more than one verification method has this id', 'duplicate_verification_method')
  const method = candidates[0] as Json

  const authorized = embeddedInAssertion || authorizations.some((entry) => typeof entry === 'string' && matches(entry))
  // RFC-ACDP-0010 §9–§10: a retired key kept in verificationMethod still verifies historical signatures.
  if (!authorized && options.historical !== true) {
    throw failed('verification method is not referenced by assertionMethod', 'not_in_assertion_method')
  }
  if (method['controller'] !== undefined && method['controller'] !== did) {
    throw failed('verification method controller is not the DID', 'controller_mismatch')
  }
  const type = method['type']
  const allowed =
    typeof type === 'string' && Object.hasOwn(VERIFICATION_METHOD_ALGORITHMS, type)
      ? VERIFICATION_METHOD_ALGORITHMS[type]
      : undefined
  if (allowed === undefined) {
    throw failed('verification method type is not supported', 'unsupported_verification_method_type', undefined, {
      type: typeof type === 'string' ? type.slice(0, 64) : null,
    })
  }

  const key = extractKey(method)
  if (!allowed.includes(key.algorithm)) {
    throw failed(`verification method type ${type} does not fit a ${key.algorithm} key`, 'key_type_mismatch')
  }
  try {
    return normalizePublicKey(key)
  } catch (error) {
    throw failed('verification method key is not a usable public key', 'invalid_public_key', error)
  }
}

function extractKey(method: Json): PublicKeyMaterial {
  const jwk = method['publicKeyJwk']
  const multibase = method['publicKeyMultibase']
  if (jwk !== undefined && multibase !== undefined) {
    throw failed('verification method carries both publicKeyJwk and publicKeyMultibase', 'ambiguous_key_material')
  }
  if (jwk !== undefined) return keyFromJwk(jwk)
  if (multibase !== undefined) {
    if (typeof multibase !== 'string') throw failed('publicKeyMultibase is not a string', 'invalid_multibase_key')
    let key: PublicKeyMaterial
    try {
      key = decodeMultibaseKey(multibase)
    } catch (error) {
      throw failed('publicKeyMultibase does not decode to a supported key', 'invalid_multibase_key', error)
    }
    if (key.algorithm !== 'ed25519') {
      throw failed('P-256 keys must be published as an uncompressed publicKeyJwk', 'unsupported_key_encoding')
    }
    return key
  }
  throw failed('verification method has no publicKeyJwk or publicKeyMultibase', 'missing_key_material')
}

function keyFromJwk(jwk: unknown): PublicKeyMaterial {
  if (!isObject(jwk)) throw failed('publicKeyJwk is not an object', 'invalid_jwk')
  if (jwk['d'] !== undefined) throw failed('publicKeyJwk contains private key material', 'private_key_in_document')
  const { kty, crv } = jwk
  if (kty === 'OKP' && crv === 'Ed25519') {
    return { algorithm: 'ed25519', publicKey: decodeCoordinate(jwk['x'], 'x') }
  }
  if (kty === 'EC' && crv === 'P-256') {
    if (jwk['y'] === undefined) throw failed('compressed P-256 JWKs are not accepted', 'unsupported_key_encoding')
    const x = decodeCoordinate(jwk['x'], 'x')
    const y = decodeCoordinate(jwk['y'], 'y')
    const point = new Uint8Array(65)
    point[0] = 0x04
    point.set(x, 1)
    point.set(y, 33)
    return { algorithm: 'ecdsa-p256', publicKey: point }
  }
  throw failed('publicKeyJwk is not an OKP/Ed25519 or EC/P-256 key', 'unsupported_key_type')
}

const BASE64URL_32 = /^[A-Za-z0-9_-]{43}$/

/** A JWK coordinate: unpadded base64url of exactly 32 bytes, canonical spelling. */
function decodeCoordinate(value: unknown, name: string): Uint8Array {
  if (typeof value !== 'string' || !BASE64URL_32.test(value)) {
    throw failed(`publicKeyJwk.${name} is not 32 bytes of unpadded base64url`, 'invalid_jwk')
  }
  // Decoded as standard base64 (same bytes, alphabet mapped, padding added): the browser bundle's Buffer
  // polyfill has no base64url encoding, and this module is shared with the console's in-browser verification.
  const standard = `${value.replace(/-/g, '+').replace(/_/g, '/')}=`
  const bytes = Buffer.from(standard, 'base64')
  if (bytes.length !== 32 || bytes.toString('base64') !== standard) {
    throw failed(`publicKeyJwk.${name} is not canonical base64url`, 'invalid_jwk')
  }
  return new Uint8Array(bytes)
}

function optionalArray(document: Json, name: string): unknown[] {
  const value = document[name]
  if (value === undefined) return []
  if (!Array.isArray(value)) throw failed(`DID document ${name} is not an array`, 'invalid_document')
  return value
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function failed(message: string, reason: string, cause?: unknown, extra: Record<string, unknown> = {}): ProtocolError {
  const nested = isProtocolError(cause) ? cause.details?.['reason'] : undefined
  return new ProtocolError('key_resolution_failed', message, {
    details: { reason, ...(nested === undefined ? {} : { cause_reason: nested }), ...extra },
    ...(cause === undefined ? {} : { cause }),
  })
}
