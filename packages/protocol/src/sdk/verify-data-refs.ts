/**
 * Consumer verification of a body's `data_refs[]` (RFC-ACDP-0002 §6.5–§6.7, RFC-ACDP-0007 §5.3), one
 * `data_ref[i]` stage per DataRef:
 *
 * - embedded content is decoded (base64 → bytes, utf8 → UTF-8 bytes, json → JCS bytes) and checked against its
 *   content_hash without any fetch;
 * - an `https://`/`http://` location is fetched only through the caller's SSRF-safe outbound client
 *   (RFC-ACDP-0008 §4.9: every resolved address filtered and pinned, same-authority redirects, body cap,
 *   deadline) and the bytes checked against `content_hash`. A refused or failed fetch fails the stage with the
 *   client's reason; the body's own verdict is untouched (the body stays valid, §4.9 last paragraph);
 * - other locations (`s3://`, structured locators) are dereferenced by their own clients: `not_available` here.
 *
 * This module imports no network code (it is part of the browser entry); the client comes from the caller.
 */
import { isProtocolError } from '../errors.js'
import { sha256String } from '../hash/sha256.js'
import { canonicalBytes } from '../jcs/canonicalize.js'
import type { OutboundClient } from '../outbound/client.js'
import { decodeBase64Strict } from '../signature/base64.js'
import type { VerificationStage } from './verification-stage.js'

/** How {@link verifyDataRefs} reaches `location`s. */
export interface DataRefOptions {
  /**
   * The SSRF-safe outbound client (`createOutboundClient`) every HTTP(S) location is fetched through. Absent:
   * locations are `not_checked` (nothing is fetched).
   */
  client?: Pick<OutboundClient, 'request'>
  /** Body cap per DataRef fetch, bytes (default: the client's). */
  maxBodyBytes?: number
  /** Deadline per DataRef fetch, ms (default: the client's). */
  totalTimeoutMs?: number
  signal?: AbortSignal
}

/** The stage name of the DataRef at `index`. */
export function dataRefStageName(index: number): string {
  return `data_ref[${index}]`
}

/**
 * One stage per entry of `body.data_refs` (none when the body has none). Never throws for bad data or a failed
 * fetch: those are failed stages.
 */
export async function verifyDataRefs(
  body: Record<string, unknown>,
  options: DataRefOptions = {},
): Promise<VerificationStage[]> {
  const refs = body['data_refs']
  if (!Array.isArray(refs)) return []
  const stages: VerificationStage[] = []
  for (const [index, ref] of refs.entries()) {
    stages.push({ name: dataRefStageName(index), ...(await verifyOne(ref as Record<string, unknown>, options)) })
  }
  return stages
}

type Outcome = Omit<VerificationStage, 'name'>

async function verifyOne(ref: Record<string, unknown>, options: DataRefOptions): Promise<Outcome> {
  if (typeof ref !== 'object' || ref === null) return { state: 'failed', reason: 'the DataRef is not an object' }
  const embedded = ref['embedded'] as Record<string, unknown> | undefined
  if (embedded !== undefined) return verifyEmbedded(embedded, ref['content_hash'])
  const expected = ref['content_hash']
  const location = ref['location']
  if (typeof location !== 'string' || !/^https?:\/\//i.test(location)) {
    const scheme = typeof location === 'string' ? `${location.split(':')[0]}://` : 'a structured locator'
    return {
      state: 'not_available',
      reason: `${scheme} is dereferenced by its own client; only http(s) locations are fetched (RFC-ACDP-0008 §4.9)`,
    }
  }
  if (typeof expected !== 'string') {
    return { state: 'not_available', reason: 'the producer declared no content_hash to check the data against' }
  }
  if (options.client === undefined) {
    return { state: 'not_checked', reason: `${location} was not fetched (fetching DataRefs was not asked for)` }
  }
  let response
  try {
    response = await options.client.request(location, {
      ...(options.maxBodyBytes === undefined ? {} : { maxBodyBytes: options.maxBodyBytes }),
      ...(options.totalTimeoutMs === undefined ? {} : { totalTimeoutMs: options.totalTimeoutMs }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    })
  } catch (error) {
    return { state: 'failed', reason: `${location} not fetched: ${describeFetchError(error)}` }
  }
  if (response.status !== 200) {
    return { state: 'failed', reason: `${location} answered ${response.status}: the data cannot be verified` }
  }
  return compareHash(response.body, expected, `${response.body.byteLength} bytes from ${response.url}`)
}

function verifyEmbedded(embedded: Record<string, unknown>, refHash: unknown): Outcome {
  const expected = embedded['content_hash'] ?? refHash
  let bytes: Uint8Array
  try {
    bytes = embeddedBytes(embedded)
  } catch (error) {
    return { state: 'failed', reason: `embedded content does not decode: ${describeFetchError(error)}` }
  }
  if (typeof expected !== 'string') {
    return { state: 'not_available', reason: `embedded (${bytes.byteLength} bytes) without a content_hash to check` }
  }
  return compareHash(bytes, expected, `embedded ${String(embedded['encoding'])} content (${bytes.byteLength} bytes)`)
}

/**
 * The bytes an embedded DataRef's content_hash covers (RFC-ACDP-0002 §6.6 check 8): decoded base64, the UTF-8
 * bytes of a utf8 string, the JCS bytes of a json value.
 *
 * @throws ProtocolError on non-canonical base64 or a json value JCS cannot encode; TypeError on a bad shape.
 */
export function embeddedBytes(embedded: Record<string, unknown>): Uint8Array {
  const { encoding, content } = embedded
  if (encoding === 'base64' && typeof content === 'string') return decodeBase64Strict(content)
  if (encoding === 'utf8' && typeof content === 'string') return new TextEncoder().encode(content)
  if (encoding === 'json') return canonicalBytes(content)
  throw new TypeError(`encoding ${String(encoding)} does not fit its content`)
}

function compareHash(bytes: Uint8Array, expected: string, what: string): Outcome {
  const actual = sha256String(bytes)
  return actual === expected
    ? { state: 'verified', reason: `${what} hash to the declared ${expected}` }
    : {
        state: 'failed',
        reason: `data_ref_hash_mismatch: ${what} hash to ${actual}, the producer declared ${expected}`,
      }
}

function describeFetchError(error: unknown): string {
  if (isProtocolError(error)) {
    const reason = error.details?.['reason']
    return `${error.code}${typeof reason === 'string' ? `/${reason}` : ''} (${error.message})`
  }
  return error instanceof Error ? error.message : String(error)
}
