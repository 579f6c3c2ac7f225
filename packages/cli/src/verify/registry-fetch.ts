/**
 * Small JSON GETs against the registry being verified or audited (capabilities, proofs, checkpoints, search).
 * Answers are attacker-controlled: parsed strictly, and a non-2xx answer is returned as its status so callers can
 * tell "not offered here" (404, 501) from a failure.
 */
import { parseJsonStrict, type RegistryAnswer, type RegistryJsonReader } from '@acdp/protocol'
import type { CliIo } from '../command.js'
import { unreachableError } from '../http/http-json.js'
import { CliError, EXIT } from '../exit-codes.js'

const MAX_ANSWER_BYTES = 1024 * 1024

export type { RegistryAnswer }

/** GET `path` (with query) under `registryUrl`. @throws CliError unreachable / invalid_response. */
export async function getRegistryJson(
  io: Pick<CliIo, 'fetch' | 'signal'>,
  registryUrl: string,
  path: string,
): Promise<RegistryAnswer> {
  const url = `${registryUrl.replace(/\/+$/, '')}${path}`
  let response: Response
  let text: string
  try {
    response = await io.fetch(url, {
      headers: { accept: 'application/acdp+json, application/json' },
      signal: AbortSignal.any([io.signal, AbortSignal.timeout(10_000)]),
    })
    text = await response.text()
  } catch (error) {
    throw unreachableError(url, error)
  }
  if (text.length > MAX_ANSWER_BYTES) {
    throw new CliError(EXIT.failure, 'invalid_response', `${url} answered more than ${MAX_ANSWER_BYTES} bytes`)
  }
  if (response.status < 200 || response.status > 299) return { status: response.status, body: undefined }
  try {
    return { status: response.status, body: parseJsonStrict(text) }
  } catch (error) {
    throw new CliError(EXIT.failure, 'invalid_response', `${url} answered with a body that is not strict JSON`, {
      cause: error,
    })
  }
}

/** {@link getRegistryJson} as the SDK's reader, for the verification pipeline. */
export function cliRegistryReader(io: Pick<CliIo, 'fetch' | 'signal'>): RegistryJsonReader {
  return (registryUrl, path) => getRegistryJson(io, registryUrl, path)
}
