/**
 * Small JSON GETs against the registry whose evidence is being verified (capabilities, proofs, checkpoints,
 * search). The verification pipeline reads through a {@link RegistryJsonReader} so each caller keeps its own error
 * vocabulary (the CLI's exit codes, an MCP tool error); {@link createRegistryJsonReader} is the SDK's own one.
 * Answers are attacker-controlled: parsed strictly, and a non-2xx answer is returned as its status so callers can
 * tell "not offered here" (404, 501) from a failure.
 */
import { isProtocolError, ProtocolError } from '../errors.js'
import { parseJsonStrict } from '../jcs/parse-json-strict.js'

/** Largest JSON answer the pipeline reads from a registry, in bytes. */
export const MAX_REGISTRY_JSON_BYTES = 1024 * 1024

/** A registry's answer: its status, and the strict-JSON body of a 2xx answer (undefined otherwise). */
export type RegistryAnswer = { status: number; body: unknown }

/** GET `path` (with query) under `registryUrl`; throws when no usable answer arrives. */
export type RegistryJsonReader = (registryUrl: string, path: string) => Promise<RegistryAnswer>

export interface RegistryJsonReaderOptions {
  /** Replaces global `fetch` (an SSRF-safe one, a guarded one, a test double). */
  fetch?: typeof globalThis.fetch
  /** Aborts every read. */
  signal?: AbortSignal
  /** Deadline of one read in milliseconds (default 10 s). */
  timeoutMs?: number
}

/**
 * The SDK's reader.
 *
 * @throws ProtocolError `outbound_failed` (no answer; `details.url`), `outbound_too_large` (over
 *   {@link MAX_REGISTRY_JSON_BYTES}), `malformed_input` (a 2xx body that is not strict JSON); a ProtocolError
 *   thrown by the caller's fetch (e.g. `outbound_refused`) unchanged.
 */
export function createRegistryJsonReader(options: RegistryJsonReaderOptions = {}): RegistryJsonReader {
  const fetchFn = options.fetch ?? globalThis.fetch
  const timeoutMs = options.timeoutMs ?? 10_000
  return async (registryUrl, path) => {
    const url = `${registryUrl.replace(/\/+$/, '')}${path}`
    const deadline = AbortSignal.timeout(timeoutMs)
    let response: Response
    let text: string
    try {
      response = await fetchFn(url, {
        headers: { accept: 'application/acdp+json, application/json' },
        signal: options.signal === undefined ? deadline : AbortSignal.any([options.signal, deadline]),
      })
      text = await response.text()
    } catch (cause) {
      if (isProtocolError(cause)) throw cause
      throw new ProtocolError('outbound_failed', `no answer from ${new URL(url).origin}`, { details: { url }, cause })
    }
    if (text.length > MAX_REGISTRY_JSON_BYTES) {
      throw new ProtocolError('outbound_too_large', `${url} answered more than ${MAX_REGISTRY_JSON_BYTES} bytes`, {
        details: { maxBytes: MAX_REGISTRY_JSON_BYTES },
      })
    }
    if (response.status < 200 || response.status > 299) return { status: response.status, body: undefined }
    try {
      return { status: response.status, body: parseJsonStrict(text) }
    } catch (cause) {
      throw new ProtocolError('malformed_input', `${url} answered with a body that is not strict JSON`, {
        details: { reason: 'not_strict_json' },
        cause,
      })
    }
  }
}
