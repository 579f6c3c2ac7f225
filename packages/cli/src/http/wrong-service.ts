/**
 * Naming the wrong service: the registry and the control plane answer errors in different envelopes (registry
 * `{ "error": { code, message } }`, control plane `{ statusCode, errorCode, message }`), so an answer in the
 * control plane's envelope to a registry call means the URL given as the registry is a control plane. A fetch
 * wrapper keeps the start of the last error answer for that check; the caller's own read of the body is
 * untouched (a clone is read, at most {@link MAX_KEPT_BYTES}).
 */
import { CliError, EXIT } from '../exit-codes.js'

/** How much of an error answer is kept for the check. */
const MAX_KEPT_BYTES = 16 * 1024

/** A fetch that remembers the start of the last non-2xx answer's body. */
export function fetchKeepingRefusals(fetch: typeof globalThis.fetch): {
  fetch: typeof globalThis.fetch
  lastRefusal: () => string | undefined
} {
  let last: string | undefined
  const wrapped: typeof globalThis.fetch = async (input, init) => {
    const response = await fetch(input, init)
    if (!response.ok) last = await readStart(response.clone())
    return response
  }
  return { fetch: wrapped, lastRefusal: () => last }
}

/** True when `text` is an error in the control plane's envelope (and not the registry's). */
export function isControlPlaneEnvelope(text: string | undefined): boolean {
  if (text === undefined) return false
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return false
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return false
  const record = parsed as Record<string, unknown>
  return typeof record['statusCode'] === 'number' && typeof record['errorCode'] === 'string' && !('error' in record)
}

/** The error for a registry call answered by a control plane. */
export function wrongServiceError(registryUrl: string, cause: unknown): CliError {
  return new CliError(
    EXIT.failure,
    'wrong_service',
    `${registryUrl} answered like an ACDP control plane, not a registry: --registry (ACDP_REGISTRY_URL) must be the registry's URL`,
    { cause },
  )
}

async function readStart(response: Response): Promise<string | undefined> {
  const reader = response.body?.getReader()
  if (reader === undefined) return undefined
  const chunks: Uint8Array[] = []
  let size = 0
  try {
    while (size < MAX_KEPT_BYTES) {
      const { done, value } = await reader.read()
      if (done) break
      chunks.push(value)
      size += value.byteLength
    }
  } catch {
    return undefined
  } finally {
    await reader.cancel().catch(() => {})
  }
  return Buffer.concat(chunks).subarray(0, MAX_KEPT_BYTES).toString('utf8')
}
