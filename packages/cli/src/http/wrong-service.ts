/**
 * Naming the wrong service: the registry and the control plane answer errors in different envelopes (registry
 * `{ "error": { code, message } }`, control plane `{ statusCode, errorCode, message }`), so an answer in the
 * control plane's envelope to a registry call means the URL given as the registry is a control plane. Every
 * registry-reading command sends its registry calls through {@link guardRegistryCalls}: the first such answer
 * stops the command with `wrong_service` (the SDK or the command may wrap it; {@link findWrongService} digs it
 * out of the cause chain), instead of a "not found" or "unreachable" that sends the user looking elsewhere.
 */
import { CliError, EXIT } from '../exit-codes.js'

/** How much of an error answer is read for the check. */
const MAX_KEPT_BYTES = 16 * 1024

/** A guarded copy of the caller's io, and what the guard saw. */
export interface RegistryGuard<T extends { fetch: typeof globalThis.fetch }> {
  /** `io` whose `fetch` refuses, for a URL under a registry base URL, an error answer in the control plane's envelope. */
  io: T
  /** The error for the wrong-service answer seen so far (a command that reports failures itself asks it). */
  detected: () => CliError | undefined
}

/**
 * Wraps `io.fetch`: a non-2xx answer to a request under one of `registryUrls` is inspected (a clone, at most
 * {@link MAX_KEPT_BYTES}); in the control plane's envelope it throws {@link wrongServiceError}. Other requests
 * (a did:web document elsewhere, another authority) and every 2xx answer pass untouched.
 */
export function guardRegistryCalls<T extends { fetch: typeof globalThis.fetch }>(
  io: T,
  registryUrls: readonly string[],
): RegistryGuard<T> {
  const bases = registryUrls.map((url) => url.replace(/\/+$/, ''))
  let seen: CliError | undefined
  const fetch: typeof globalThis.fetch = async (input, init) => {
    const response = await io.fetch(input, init)
    if (response.ok) return response
    const url = requestUrl(input)
    const base = bases.find((candidate) => url === candidate || url.startsWith(`${candidate}/`))
    if (base === undefined) return response
    if (!isControlPlaneEnvelope(await readStart(response.clone()))) return response
    seen ??= wrongServiceError(base, undefined)
    throw seen
  }
  return { io: { ...io, fetch }, detected: () => seen }
}

/** The `wrong_service` error in `error` or its cause chain (bounded), if any. */
export function findWrongService(error: unknown): CliError | undefined {
  let current: unknown = error
  for (let depth = 0; depth < 8 && current !== undefined && current !== null; depth += 1) {
    if (current instanceof CliError && current.code === 'wrong_service') return current
    current = current instanceof Error ? current.cause : undefined
  }
  return undefined
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

function requestUrl(input: Parameters<typeof globalThis.fetch>[0]): string {
  if (typeof input === 'string') return input
  if (input instanceof URL) return input.href
  return input.url
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
