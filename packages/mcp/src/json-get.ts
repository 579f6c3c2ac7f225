/**
 * One JSON GET against a configured service (the registry's search, the control plane's runs): bounded by the
 * call's signal, the body capped, parsed strictly, and a non-2xx answer turned into a ToolError that carries the
 * service's own error code (registry `{ error: { code, message } }`, control plane `{ errorCode, message }`).
 */
import { parseJsonStrict } from '@acdp/protocol'
import { ToolError } from './tool-result.js'

/** Largest answer read, in bytes; the result cap applies to what is returned on top of it. */
const MAX_ANSWER_BYTES = 4 * 1024 * 1024

export async function getJson(
  fetch: typeof globalThis.fetch,
  url: string,
  headers: Record<string, string>,
  signal: AbortSignal,
): Promise<unknown> {
  const response = await fetch(url, { headers: { accept: 'application/json', ...headers }, signal })
  const text = await readCapped(response, url)
  if (!response.ok) {
    const { code, message } = readErrorEnvelope(text, response.status)
    throw new ToolError(code, `${new URL(url).pathname} answered ${response.status}: ${message}`)
  }
  try {
    return parseJsonStrict(text)
  } catch {
    throw new ToolError('invalid_response', `${new URL(url).pathname} answered a body that is not strict JSON`)
  }
}

async function readCapped(response: Response, url: string): Promise<string> {
  if (response.body === null) return ''
  const chunks: Uint8Array[] = []
  let total = 0
  for await (const chunk of response.body) {
    total += chunk.byteLength
    if (total > MAX_ANSWER_BYTES) {
      throw new ToolError('result_too_large', `${new URL(url).pathname} answered more than ${MAX_ANSWER_BYTES} bytes`)
    }
    chunks.push(chunk)
  }
  return Buffer.concat(chunks).toString('utf8')
}

function readErrorEnvelope(text: string, status: number): { code: string; message: string } {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    parsed = undefined
  }
  const record = isRecord(parsed) ? parsed : {}
  const nested = isRecord(record['error']) ? record['error'] : {}
  const code = [nested['code'], record['errorCode'], record['code']].find((v) => typeof v === 'string')
  const message = [nested['message'], record['message']].find((v) => typeof v === 'string')
  return {
    code: typeof code === 'string' ? code.slice(0, 64) : `http_${status}`,
    message: typeof message === 'string' ? message.slice(0, 300) : `HTTP ${status}`,
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
