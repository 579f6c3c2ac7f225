/**
 * The SDK's HTTP plumbing toward a registry: one bounded request through the caller's `fetch` (global `fetch`
 * by default), a capped body read, and the registry's error envelope (RFC-ACDP-0007 §4) turned into a
 * ProtocolError. Client side only: this package holds no server code.
 */
import { isProtocolError, ProtocolError } from '../errors.js'

/** Deadline of one SDK request unless the caller passes another, in milliseconds. */
export const DEFAULT_SDK_TIMEOUT_MS = 10_000

/** Largest response body the SDK reads, in bytes (a context is capped well below this by registries). */
export const MAX_SDK_RESPONSE_BYTES = 8 * 1024 * 1024

/** Options every SDK network call accepts. */
export interface SdkRequestOptions {
  /** Replaces global `fetch` (tests, proxies, instrumentation). */
  fetch?: typeof globalThis.fetch
  /** Whole-request deadline in milliseconds. Default {@link DEFAULT_SDK_TIMEOUT_MS}. */
  timeoutMs?: number
  /** Aborts the request. */
  signal?: AbortSignal
}

/** A read response: status, headers and the body text (UTF-8). */
export interface RegistryHttpResponse {
  status: number
  headers: Headers
  text: string
}

/**
 * Sends one request and reads the body (any status).
 *
 * @throws ProtocolError `outbound_failed` when no answer arrives (transport error, deadline, abort).
 * @throws ProtocolError `outbound_too_large` when the body exceeds {@link MAX_SDK_RESPONSE_BYTES}.
 * @throws ProtocolError thrown by the caller's `fetch` itself, unchanged (e.g. `outbound_refused`).
 */
export async function sendRegistryRequest(
  url: string,
  init: RequestInit,
  options: SdkRequestOptions = {},
): Promise<RegistryHttpResponse> {
  const fetchFn = options.fetch ?? globalThis.fetch
  const deadline = AbortSignal.timeout(options.timeoutMs ?? DEFAULT_SDK_TIMEOUT_MS)
  const signal = options.signal === undefined ? deadline : AbortSignal.any([options.signal, deadline])
  let response: Response
  try {
    response = await fetchFn(url, { ...init, signal })
  } catch (cause) {
    // A policy-enforcing fetch (fetchThroughOutbound) already says what went wrong: refused, too large, failed.
    if (isProtocolError(cause)) throw cause
    throw transportError(url, cause)
  }
  let text: string
  try {
    text = await readTextCapped(response, MAX_SDK_RESPONSE_BYTES)
  } catch (cause) {
    if (cause instanceof ProtocolError) throw cause
    throw transportError(url, cause)
  }
  return { status: response.status, headers: response.headers, text }
}

/**
 * The error for a non-2xx registry answer. The envelope is attacker-controlled: only a string `code` and
 * `message` are taken, cut to a sane length; `details` is kept when it is an object.
 */
export function rejectedRequestError(response: RegistryHttpResponse): ProtocolError {
  let envelope: unknown
  try {
    envelope = JSON.parse(response.text)
  } catch {
    envelope = undefined
  }
  const error = isRecord(envelope) && isRecord(envelope['error']) ? envelope['error'] : {}
  const code = typeof error['code'] === 'string' ? error['code'].slice(0, 64) : `http_${response.status}`
  const message = typeof error['message'] === 'string' ? error['message'].slice(0, 500) : `HTTP ${response.status}`
  return new ProtocolError('request_rejected', `${code}: ${message}`, {
    details: { status: response.status, code, ...(isRecord(error['details']) ? { details: error['details'] } : {}) },
  })
}

/** Joins a registry base URL and an absolute path. */
export function registryEndpoint(registryUrl: string, path: string): string {
  return `${registryUrl.replace(/\/+$/, '')}${path}`
}

function transportError(url: string, cause: unknown): ProtocolError {
  const name = cause instanceof Error ? cause.name : ''
  const reason = name === 'TimeoutError' ? 'timeout' : name === 'AbortError' ? 'aborted' : 'transport'
  let origin = url
  try {
    origin = new URL(url).origin
  } catch {
    // not a parseable URL: report it as given
  }
  return new ProtocolError('outbound_failed', `no answer from ${origin} (${reason})`, {
    details: { reason, url },
    cause,
  })
}

async function readTextCapped(response: Response, maxBytes: number): Promise<string> {
  if (response.body === null) return ''
  const chunks: Uint8Array[] = []
  let total = 0
  for await (const chunk of response.body) {
    total += chunk.byteLength
    // Throwing inside for-await cancels the stream, so the rest of the body is never read.
    if (total > maxBytes) {
      throw new ProtocolError('outbound_too_large', `response body exceeds ${maxBytes} bytes`, {
        details: { maxBytes },
      })
    }
    chunks.push(chunk)
  }
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.concat(chunks))
  } catch (cause) {
    // RFC-ACDP-0001 §5.1: ACDP messages are UTF-8; replacing bad bytes would change what gets hashed.
    throw new ProtocolError('malformed_input', 'response body is not valid UTF-8', {
      details: { reason: 'invalid_utf8' },
      cause,
    })
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
