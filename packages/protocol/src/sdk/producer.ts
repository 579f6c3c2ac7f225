/**
 * A producer client (RFC-ACDP-0003): completes producer content, signs it with a {@link ProducerKey} and
 * POSTs it to a registry's /contexts, returning the assigned ctx_id and Location.
 */
import { ProtocolError } from '../errors.js'
import { fetchContext } from './fetch-context.js'
import type { ProducerKey } from './producer-key.js'
import { buildPublishRequest, type SignedPublishRequest } from './publish-request.js'
import { registryEndpoint, rejectedRequestError, type SdkRequestOptions, sendRegistryRequest } from './registry-http.js'

/** The `acdp_version` the SDK stamps on bodies that do not declare one (the version this library implements). */
export const SDK_ACDP_VERSION = '0.5.0'

/** Options of {@link createProducer}. */
export interface ProducerOptions extends Omit<SdkRequestOptions, 'signal'> {
  /** Registry base URL, e.g. `https://registry.example.com`. */
  registryUrl: string
  key: ProducerKey
}

/** Per-publish options. */
export interface PublishOptions {
  /** Sent as `X-Run-Id`; the registry echoes it as `run_id` in its webhook so a control plane files the context under the run. */
  runId?: string
  /** Sent as `Idempotency-Key` (RFC-ACDP-0003 §6): a retry with the same key and content answers 200 with the same ctx_id. */
  idempotencyKey?: string
  /**
   * ctx_id of the previous version to supersede. The producer fetches it to set `version` to its version + 1
   * (unless the body sets `version`) and sets `supersedes`.
   */
  supersedes?: string
  signal?: AbortSignal
}

/** The registry's publish response (`acdp-publish-response.schema.json`), passed through. */
export type PublishResponseBody = Record<string, unknown> & { ctx_id: string }

/** Outcome of a publish. `replayed` is true for an idempotent replay (200 rather than 201). */
export interface PublishResult {
  ctxId: string
  /** The Location header as sent (path-relative, `/contexts/<percent-encoded ctx_id>`). */
  location: string
  status: number
  replayed: boolean
  response: PublishResponseBody
  /** The signed request that was sent. */
  request: SignedPublishRequest
}

/** A producer bound to one registry and one key. */
export interface Producer {
  readonly did: string
  readonly keyId: string
  /**
   * Completes, signs and publishes a body (see {@link completeProducerContent}).
   *
   * @throws ProtocolError `request_rejected` with the registry's code (`invalid_signature`, `schema_violation`…).
   * @throws ProtocolError `outbound_failed` / `outbound_too_large` from the transport; `malformed_input` for an
   *   answer that is not a publish response; the codes of {@link buildPublishRequest}.
   */
  publish(body: Record<string, unknown>, options?: PublishOptions): Promise<PublishResult>
}

/** Creates a producer. Requests go through `options.fetch` (global `fetch` by default). */
export function createProducer(options: ProducerOptions): Producer {
  const { registryUrl, key } = options
  return {
    did: key.did,
    keyId: key.keyId,
    async publish(body, publishOptions = {}) {
      const requestOptions: SdkRequestOptions = {
        ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
        ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
        ...(publishOptions.signal === undefined ? {} : { signal: publishOptions.signal }),
      }
      let content = completeProducerContent(body, key)
      if (publishOptions.supersedes !== undefined) {
        content = await applySupersession(registryUrl, content, body, publishOptions.supersedes, requestOptions)
      }
      const request = buildPublishRequest({
        body: content,
        algorithm: key.algorithm,
        privateKey: key.privateKey,
        keyId: key.keyId,
      })
      const headers: Record<string, string> = {
        'content-type': 'application/acdp+json',
        accept: 'application/acdp+json, application/json',
      }
      if (publishOptions.runId !== undefined) headers['x-run-id'] = publishOptions.runId
      if (publishOptions.idempotencyKey !== undefined) headers['idempotency-key'] = publishOptions.idempotencyKey
      const response = await sendRegistryRequest(
        registryEndpoint(registryUrl, '/contexts'),
        { method: 'POST', headers, body: JSON.stringify(request) },
        requestOptions,
      )
      if (response.status !== 200 && response.status !== 201) throw rejectedRequestError(response)
      const answer = parsePublishResponse(response.text)
      return {
        ctxId: answer.ctx_id,
        location: response.headers.get('location') ?? `/contexts/${encodeURIComponent(answer.ctx_id)}`,
        status: response.status,
        replayed: response.status === 200,
        response: answer,
        request,
      }
    },
  }
}

/**
 * Fills the members every publish request needs when the body leaves them out: `agent_id` (the key's DID),
 * `version` 1, `supersedes` null, `contributors`/`data_refs`/`derived_from` empty, `visibility` public and
 * `acdp_version` {@link SDK_ACDP_VERSION} (did:key producers need ≥ 0.2.0, RFC-ACDP-0001 §5.4). Members the
 * body sets are kept as they are; the input is not modified.
 *
 * @throws TypeError when the body is not an object, or its `agent_id` is not the key's DID (the registry would
 *   answer key_not_authorized).
 */
export function completeProducerContent(
  body: Record<string, unknown>,
  key: Pick<ProducerKey, 'did'>,
): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new TypeError('body must be a JSON object')
  if (body['agent_id'] !== undefined && body['agent_id'] !== key.did) {
    throw new TypeError(`body agent_id ${String(body['agent_id'])} is not the signing key's DID ${key.did}`)
  }
  const defaults: Record<string, unknown> = {
    agent_id: key.did,
    version: 1,
    supersedes: null,
    contributors: [],
    data_refs: [],
    derived_from: [],
    visibility: 'public',
    acdp_version: SDK_ACDP_VERSION,
  }
  const content = { ...body }
  for (const [name, value] of Object.entries(defaults)) if (content[name] === undefined) content[name] = value
  return content
}

async function applySupersession(
  registryUrl: string,
  content: Record<string, unknown>,
  original: Record<string, unknown>,
  supersedes: string,
  requestOptions: SdkRequestOptions,
): Promise<Record<string, unknown>> {
  if (
    original['supersedes'] !== undefined &&
    original['supersedes'] !== null &&
    original['supersedes'] !== supersedes
  ) {
    throw new TypeError('body supersedes differs from the supersedes option')
  }
  const previous = await fetchContext(registryUrl, supersedes, requestOptions)
  const previousVersion = previous.envelope.body['version']
  if (!Number.isSafeInteger(previousVersion) || (previousVersion as number) < 1) {
    throw new ProtocolError('malformed_input', 'superseded context has no integer version', {
      details: { reason: 'version' },
    })
  }
  return {
    ...content,
    supersedes,
    version: original['version'] === undefined ? (previousVersion as number) + 1 : original['version'],
  }
}

// The answer is attacker-controlled as far as the SDK is concerned: only a string ctx_id is required of it.
function parsePublishResponse(text: string): PublishResponseBody {
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch (cause) {
    throw new ProtocolError('malformed_input', 'publish answer is not JSON', {
      details: { reason: 'invalid_json' },
      cause,
    })
  }
  if (
    typeof parsed !== 'object' ||
    parsed === null ||
    typeof (parsed as Record<string, unknown>)['ctx_id'] !== 'string'
  ) {
    throw new ProtocolError('malformed_input', 'publish answer has no ctx_id', {
      details: { reason: 'missing_ctx_id' },
    })
  }
  return parsed as PublishResponseBody
}
