/**
 * The control-plane calls the CLI makes (control-plane.md "Endpoints"): run reads, the lineage graph, event
 * history, the live stream, and the HMAC-signed run notifications `acdp demo` sends. HTTP only; no service code.
 */
import { signTimestampedWebhook, signWebhookBody, signWebhookV2, WEBHOOK_HEADERS } from '@acdp/protocol'
import type { CliIo } from '../command.js'
import type { EnrollmentView, RunDetail, RunPage, RunView } from '@acdp/control-plane/response-schemas'
import type { LineageGraph } from '../render/lineage-text.js'
import { CliError } from '../exit-codes.js'
import { type JsonResponse, requestJson, serverError, unreachableError } from './http-json.js'

/** Where the control plane is and how to authenticate to it. */
export interface ControlPlaneTarget {
  baseUrl: string
  /** Bearer API key; omitted when the control plane runs without AUTH_API_KEYS. */
  apiKey?: string
  /** Sent as X-Tenant-Id when set (a key that is not bound to a tenant acts in the tenant it names). */
  tenantId?: string
}

/** GET /runs with optional filters. @throws CliError (see requestJson). */
export async function listRuns(
  io: Pick<CliIo, 'fetch' | 'signal'>,
  target: ControlPlaneTarget,
  query: { status?: string; scenarioId?: string; limit?: number; offset?: number },
): Promise<RunPage> {
  const params = new URLSearchParams()
  for (const [name, value] of Object.entries(query)) if (value !== undefined) params.set(name, String(value))
  const suffix = params.size === 0 ? '' : `?${params}`
  return (await callControlPlane(io, target, `/runs${suffix}`)).body as RunPage
}

/** GET /runs/:runId. @throws CliError `RUN_NOT_FOUND` (exit 1) for an unknown run. */
export async function getRun(
  io: Pick<CliIo, 'fetch' | 'signal'>,
  target: ControlPlaneTarget,
  runId: string,
): Promise<RunDetail> {
  return (await callControlPlane(io, target, `/runs/${encodeURIComponent(runId)}`)).body as RunDetail
}

/** GET /runs/:runId/lineage (an unknown run yields an empty graph, as the control plane answers). */
export async function getRunLineage(
  io: Pick<CliIo, 'fetch' | 'signal'>,
  target: ControlPlaneTarget,
  runId: string,
): Promise<LineageGraph> {
  return (await callControlPlane(io, target, `/runs/${encodeURIComponent(runId)}/lineage`)).body as LineageGraph
}

/** GET /runs/:runId/events: `{ data, total }` in event order. */
export async function getRunEvents(
  io: Pick<CliIo, 'fetch' | 'signal'>,
  target: ControlPlaneTarget,
  runId: string,
): Promise<{ data: Array<Record<string, unknown>>; total: number }> {
  return (await callControlPlane(io, target, `/runs/${encodeURIComponent(runId)}/events`)).body as {
    data: Array<Record<string, unknown>>
    total: number
  }
}

/**
 * Opens the SSE stream (global, or one run's) and returns the response once the server accepted it; the
 * caller reads `response.body` with readSseFrames. Only the connection is bounded by `connectTimeoutMs`; the
 * stream itself lives until `signal` aborts.
 *
 * @throws CliError `unreachable` when the connection fails; the server's code on a non-2xx answer.
 */
export async function openEventStream(
  io: Pick<CliIo, 'fetch'>,
  target: ControlPlaneTarget,
  options: { runId?: string; signal: AbortSignal; connectTimeoutMs?: number },
): Promise<Response> {
  const path =
    options.runId === undefined ? '/events/stream' : `/runs/${encodeURIComponent(options.runId)}/events/stream`
  const url = endpoint(target, path)
  const connectDeadline = new AbortController()
  const timer = setTimeout(
    () => connectDeadline.abort(new DOMException('connect deadline', 'TimeoutError')),
    options.connectTimeoutMs ?? 10_000,
  )
  let response: Response
  try {
    response = await io.fetch(url, {
      headers: { ...authHeaders(target), accept: 'text/event-stream' },
      signal: AbortSignal.any([options.signal, connectDeadline.signal]),
    })
  } catch (error) {
    throw unreachableError(url, error)
  } finally {
    clearTimeout(timer)
  }
  if (!response.ok || response.body === null) {
    const text = await response.text().catch(() => '')
    throw explainRefusedKey(target, serverError(response.status, text, url))
  }
  return response
}

/**
 * POST /runs/started, authenticated like ingest: the HMAC-SHA256 over the exact bytes sent, in the plain
 * `X-ACDP-Signature`, the timestamped and the V2 form (V2 binds X-Tenant-Id and, on completion, the path's run id) (a control plane with INGEST_REQUIRE_TIMESTAMPED_SIGNATURE refuses
 * the plain one alone). `secret` is the control plane's WEBHOOK_SECRET, or the webhook secret of the enrolled
 * registry named by `registry_authority`.
 */
export async function notifyRunStarted(
  io: Pick<CliIo, 'fetch' | 'signal'>,
  target: ControlPlaneTarget,
  secret: string,
  run: { run_id: string; scenario_id: string; started_at?: string; inputs?: unknown; registry_authority?: string },
): Promise<void> {
  await postSigned(io, target, '/runs/started', secret, run)
}

/** POST /runs/:runId/complete with the same signatures; V2 binds the path's run id. */
export async function notifyRunCompleted(
  io: Pick<CliIo, 'fetch' | 'signal'>,
  target: ControlPlaneTarget,
  secret: string,
  runId: string,
  outcome: { status: 'completed' | 'failed' | 'cancelled'; result?: unknown; registry_authority?: string },
): Promise<void> {
  await postSigned(io, target, `/runs/${encodeURIComponent(runId)}/complete`, secret, outcome, runId)
}

async function postSigned(
  io: Pick<CliIo, 'fetch' | 'signal'>,
  target: ControlPlaneTarget,
  path: string,
  secret: string,
  payload: unknown,
  pathRunId?: string,
): Promise<void> {
  const rawBody = JSON.stringify(payload)
  const nowSeconds = Math.floor(Date.now() / 1000)
  const bound = { tenantId: target.tenantId, runId: pathRunId, eventId: undefined }
  await requestJson(io, endpoint(target, path), {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      ...(target.tenantId === undefined ? {} : { 'x-tenant-id': target.tenantId }),
      [WEBHOOK_HEADERS.signature]: signWebhookBody(secret, rawBody),
      [WEBHOOK_HEADERS.timestamp]: String(nowSeconds),
      [WEBHOOK_HEADERS.signatureTimestamped]: signTimestampedWebhook(secret, nowSeconds, rawBody),
      [WEBHOOK_HEADERS.signatureV2]: signWebhookV2(secret, nowSeconds, bound, rawBody),
    },
    body: rawBody,
  })
}

/** The members of a POST /registries/enroll body the CLI sends (the control plane's EnrollBody takes more). */
export interface EnrollRegistryBody {
  authority: string
  baseUrl?: string | null
  registryDid?: string | null
  webhookSecret?: string
  enabled?: boolean
}

/** POST /registries/enroll (admin key): creates or updates the enrollment; the answer never holds the secret. */
export async function enrollRegistry(
  io: Pick<CliIo, 'fetch' | 'signal'>,
  target: ControlPlaneTarget,
  request: EnrollRegistryBody,
): Promise<EnrollmentView> {
  return (await callControlPlane(io, target, '/registries/enroll', { method: 'POST', json: request }))
    .body as EnrollmentView
}

/**
 * The control plane's witness DID from its `/.well-known/did.json`, or undefined when it serves none (cosigning
 * off: 404). Unauthenticated, as registries and consumers read it.
 */
export async function readWitnessDid(
  io: Pick<CliIo, 'fetch' | 'signal'>,
  target: ControlPlaneTarget,
): Promise<string | undefined> {
  try {
    const { body } = await requestJson(io, endpoint(target, '/.well-known/did.json'))
    const id = typeof body === 'object' && body !== null ? (body as { id?: unknown }).id : undefined
    return typeof id === 'string' && /^did:[a-z0-9]+:[A-Za-z0-9._:%-]+$/.test(id) ? id : undefined
  } catch (error) {
    if (error instanceof CliError && error.httpStatus === 404) return undefined
    throw error
  }
}

/**
 * One authenticated control-plane call: the target's bearer key and tenant, an optional JSON body, and a 401
 * explained as a missing or refused API key rather than only the control plane's code.
 */
async function callControlPlane(
  io: Pick<CliIo, 'fetch' | 'signal'>,
  target: ControlPlaneTarget,
  path: string,
  init: { method?: string; json?: unknown } = {},
): Promise<JsonResponse> {
  try {
    return await requestJson(io, endpoint(target, path), {
      ...(init.method === undefined ? {} : { method: init.method }),
      headers: { ...authHeaders(target), ...(init.json === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(init.json === undefined ? {} : { body: JSON.stringify(init.json) }),
    })
  } catch (error) {
    throw error instanceof CliError ? explainRefusedKey(target, error) : error
  }
}

/** A 401 names what is wrong with the credentials: none was given, or the one given was refused. */
function explainRefusedKey(target: ControlPlaneTarget, error: CliError): CliError {
  if (error.httpStatus !== 401) return error
  const hint =
    target.apiKey === undefined
      ? 'missing API key: this control plane requires one; set ACDP_API_KEY (an AUTH_API_KEYS entry; AUTH_ADMIN_API_KEYS for admin commands)'
      : 'API key refused: ACDP_API_KEY is not one of the control plane’s AUTH_API_KEYS / AUTH_ADMIN_API_KEYS'
  return new CliError(
    error.exitCode,
    target.apiKey === undefined ? 'missing_api_key' : error.code,
    `${hint} (${error.message})`,
    {
      cause: error,
      httpStatus: 401,
    },
  )
}

function endpoint(target: ControlPlaneTarget, path: string): string {
  return `${target.baseUrl.replace(/\/+$/, '')}${path}`
}

function authHeaders(target: ControlPlaneTarget): Record<string, string> {
  return {
    ...(target.apiKey === undefined ? {} : { authorization: `Bearer ${target.apiKey}` }),
    ...(target.tenantId === undefined ? {} : { 'x-tenant-id': target.tenantId }),
  }
}

/**
 * POST /registries/:authority/webhook-secret/rotate (admin key): `webhookSecret` becomes current, the replaced
 * secret stays accepted for `previousValidForSeconds` (the control plane's default when omitted).
 */
export async function rotateEnrollmentSecret(
  io: Pick<CliIo, 'fetch' | 'signal'>,
  target: ControlPlaneTarget,
  authority: string,
  request: { webhookSecret: string; previousValidForSeconds?: number },
): Promise<EnrollmentView> {
  return (
    await callControlPlane(io, target, `/registries/${encodeURIComponent(authority)}/webhook-secret/rotate`, {
      method: 'POST',
      json: request,
    })
  ).body as EnrollmentView
}

/** DELETE /registries/:authority/webhook-secret/previous (admin key): the previous secret is refused from now on. */
export async function dropPreviousEnrollmentSecret(
  io: Pick<CliIo, 'fetch' | 'signal'>,
  target: ControlPlaneTarget,
  authority: string,
): Promise<EnrollmentView> {
  return (
    await callControlPlane(io, target, `/registries/${encodeURIComponent(authority)}/webhook-secret/previous`, {
      method: 'DELETE',
    })
  ).body as EnrollmentView
}

// The CLI reads the control plane's wire shapes as its response schemas declare them (type-only: no server code).
export type { EnrollmentView, RunPage, RunView }
