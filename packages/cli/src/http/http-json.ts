/**
 * JSON over HTTP for the CLI's control-plane calls: one bounded request, server error envelopes turned into
 * one-line CliErrors carrying the server's code, transport failures into `unreachable`.
 */
import type { CliIo } from '../command.js'
import { CliError, EXIT } from '../exit-codes.js'

/** Default deadline of one CLI request, in milliseconds. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 10_000

/** A successful JSON answer. */
export interface JsonResponse {
  status: number
  headers: Headers
  body: unknown
}

/**
 * Sends one request and reads a JSON (or empty) 2xx answer. The deadline and the CLI's interrupt signal both
 * abort it.
 *
 * @throws CliError `unreachable` (exit 3) when the server cannot be reached or the deadline passes; the
 *   server's error code (exit 1) on a non-2xx answer; `invalid_response` (exit 1) when a 2xx body is not JSON.
 */
export async function requestJson(
  io: Pick<CliIo, 'fetch' | 'signal'>,
  url: string,
  init: RequestInit & { timeoutMs?: number } = {},
): Promise<JsonResponse> {
  const { timeoutMs = DEFAULT_REQUEST_TIMEOUT_MS, ...rest } = init
  const signal = AbortSignal.any([io.signal, AbortSignal.timeout(timeoutMs)])
  let response: Response
  let text: string
  try {
    response = await io.fetch(url, { ...rest, signal })
    text = await response.text()
  } catch (error) {
    throw unreachableError(url, error)
  }
  if (!response.ok) throw serverError(response.status, text, url)
  if (text === '') return { status: response.status, headers: response.headers, body: undefined }
  try {
    return { status: response.status, headers: response.headers, body: JSON.parse(text) }
  } catch (error) {
    throw new CliError(
      EXIT.failure,
      'invalid_response',
      `${describeTarget(url)} answered ${response.status} with a body that is not JSON`,
      {
        cause: error,
      },
    )
  }
}

/** The CLI error for a request that never got an answer. */
export function unreachableError(url: string, error: unknown): CliError {
  const reason = describeTransportFailure(error)
  return new CliError(EXIT.unreachable, 'unreachable', `cannot reach ${describeTarget(url)}: ${reason}`, {
    cause: error,
  })
}

/**
 * The CLI error for a non-2xx answer. Understands the registry envelope `{ error: { code, message } }`, the
 * control plane's `{ statusCode, errorCode, message }` and its policy denial `{ message, code, reason }`;
 * anything else is reported as `http_<status>`. The body is attacker-controlled: only string members are
 * used, and the message is cut to one short line.
 */
export function serverError(status: number, text: string, url: string): CliError {
  const { code, message } = readErrorEnvelope(status, text)
  return new CliError(EXIT.failure, code, `${describeTarget(url)} answered ${status} ${code}: ${message}`, {
    httpStatus: status,
  })
}

/** Extracts `{ code, message }` from an error body of either service (see {@link serverError}). */
export function readErrorEnvelope(status: number, text: string): { code: string; message: string } {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    parsed = undefined
  }
  const record = isRecord(parsed) ? parsed : {}
  const nested = isRecord(record['error']) ? record['error'] : undefined
  const code = pickString(nested?.['code'], record['errorCode'], record['code']) ?? `http_${status}`
  const message =
    pickString(nested?.['message'], record['message']) ?? (text.trim() === '' ? 'no body' : 'unexpected body')
  return { code: oneLine(code, 64), message: oneLine(message, 300) }
}

function pickString(...values: unknown[]): string | undefined {
  return values.find((value): value is string => typeof value === 'string' && value !== '')
}

function oneLine(text: string, max: number): string {
  // control characters in this pattern are deliberate: a server string must not break the one-line error
  const flat = text.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ').trim()
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat
}

function describeTarget(url: string): string {
  try {
    const parsed = new URL(url)
    return `${parsed.origin}${parsed.pathname}`
  } catch {
    return url
  }
}

function describeTransportFailure(error: unknown): string {
  if (error instanceof Error) {
    if (error.name === 'TimeoutError') return 'no answer before the deadline'
    if (error.name === 'AbortError') return 'interrupted'
    const cause = (error as { cause?: unknown }).cause
    if (cause instanceof Error) {
      const code = (cause as { code?: unknown }).code
      return typeof code === 'string' ? `${code} (${oneLine(cause.message, 120)})` : oneLine(cause.message, 160)
    }
    return oneLine(error.message, 160)
  }
  return String(error)
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
