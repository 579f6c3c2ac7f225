/**
 * ctx_id minting, parsing of the `{ctx_id}` path forms, and the `Location` encoding (RFC-ACDP-0001 §5.5,
 * RFC-ACDP-0004 §2.1, RFC-ACDP-0003 §4 / pub-007).
 */
import { CTX_ID_PATTERN } from '@acdp/protocol'
import { RegistryError } from './errors.js'

const CTX_ID = new RegExp(CTX_ID_PATTERN)

/** Formats 16 random bytes as a lowercase RFC 9562 version-4 UUID (version nibble 4, variant 10xx). */
export function formatUuidV4(bytes: Uint8Array): string {
  if (bytes.length < 16) throw new TypeError('a UUID needs 16 random bytes')
  const b = Uint8Array.from(bytes.subarray(0, 16))
  b[6] = ((b[6] as number) & 0x0f) | 0x40
  b[8] = ((b[8] as number) & 0x3f) | 0x80
  const hex = Buffer.from(b).toString('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

/** A fresh `acdp://<authority>/<uuid v4>` from CSPRNG bytes (RFC-ACDP-0003 §2.1 step 8). */
export function mintCtxId(authority: string, random: (size: number) => Uint8Array): string {
  return `acdp://${authority}/${formatUuidV4(random(16))}`
}

/** True when `value` is a well-formed ctx_id (lowercase authority, lowercase UUID v4). */
export function isCtxId(value: string): boolean {
  return CTX_ID.test(value)
}

/** The authority (hostname) of a well-formed ctx_id. */
export function authorityOf(ctxId: string): string {
  return ctxId.slice('acdp://'.length, ctxId.indexOf('/', 'acdp://'.length))
}

/**
 * `Location` of a context: `/contexts/` + the whole ctx_id percent-encoded as one path segment with uppercase
 * hex (`acdp%3A%2F%2F<authority>%2F<uuid>`, pub-007).
 */
export function contextLocation(ctxId: string): string {
  return `/contexts/${encodeURIComponent(ctxId)}`
}

/**
 * Reads the ctx_id out of the path after `/contexts/` (query already removed). Accepts the percent-encoded
 * URI (the canonical form), a client-decoded `acdp://…`, and the path-style `<authority>/<uuid>` alternate.
 * Attacker-controlled input.
 *
 * @throws RegistryError `schema_violation` when the result is not a well-formed ctx_id.
 */
export function parseCtxIdPath(rawPath: string): string {
  let decoded: string
  try {
    decoded = decodeURIComponent(rawPath)
  } catch (cause) {
    throw new RegistryError('schema_violation', 'The ctx_id in the path is not valid percent-encoding.', { cause })
  }
  const candidate = decoded.startsWith('acdp://') ? decoded : `acdp://${decoded}`
  if (!isCtxId(candidate)) {
    throw new RegistryError(
      'schema_violation',
      'The path does not carry a well-formed ctx_id (acdp://<authority>/<uuid v4>).',
    )
  }
  return candidate
}
