/**
 * Live streams (product spec "Streams (SSE)", endpoints `GET /events/stream` and `GET /runs/:runId/events/stream`):
 * key/JWT auth and tenant scoping like every other read. Beyond the spec: `Last-Event-ID` (header, or the
 * `lastEventId` query parameter for clients that cannot set headers on the first connect) resumes from stored
 * history, and `eventType=a,b` filters by event type.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { Type } from 'typebox'
import { ControlPlaneError } from '../core/errors.js'
import { type SseHub, SSE_CONTENT_HEADERS, type StreamSubscription } from './sse.js'
import { isStreamEventId } from './sse-history.js'

export interface StreamRouteDeps {
  sse: SseHub
  /** The caller's resolved tenant; authentication has already run in the app's hooks. */
  tenantOf(request: FastifyRequest): string
}

/** Event types one stream may filter on. */
const MAX_FILTER_TYPES = 32

const StreamQuery = Type.Object(
  {
    eventType: Type.Optional(Type.String({ minLength: 1, maxLength: 4096 })),
    lastEventId: Type.Optional(Type.String({ maxLength: 32 })),
  },
  { additionalProperties: false },
)
const RunParams = Type.Object({ runId: Type.String({ minLength: 1, maxLength: 255 }) })

type StreamQueryValue = { eventType?: string; lastEventId?: string }

/** Registers both stream routes. */
export function registerStreamRoutes(app: FastifyInstance, deps: StreamRouteDeps): void {
  app.get(
    '/events/stream',
    {
      schema: {
        summary: "Live server-sent stream of the tenant's events (resumes with Last-Event-ID)",
        querystring: StreamQuery,
      },
    },
    async (request, reply) => {
      openStream(deps, request, reply, undefined)
    },
  )
  app.get(
    '/runs/:runId/events/stream',
    { schema: { summary: "Live server-sent stream of one run's events", params: RunParams, querystring: StreamQuery } },
    async (request, reply) => {
      openStream(deps, request, reply, (request.params as { runId: string }).runId)
    },
  )
}

function openStream(
  deps: StreamRouteDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  runId: string | undefined,
): void {
  const query = request.query as StreamQueryValue
  const subscription: StreamSubscription = { tenantId: deps.tenantOf(request) }
  if (runId !== undefined) subscription.runId = runId
  const types = parseEventTypes(query.eventType)
  if (types) subscription.eventTypes = types
  const lastEventId = readLastEventId(request, query)
  if (lastEventId !== undefined) subscription.lastEventId = lastEventId
  if (request.method === 'HEAD') {
    // No body to stream: answer the stream's headers and finish (a hijacked HEAD stream sent nothing and held a
    // stream slot until the client left; found by the HTTP fuzzer).
    void reply.code(200).headers(SSE_CONTENT_HEADERS).send()
    return
  }
  if (!deps.sse.canAccept()) {
    throw new ControlPlaneError('SERVICE_DRAINING', 'no stream capacity on this instance; retry', {
      headers: { 'retry-after': '1' },
    })
  }
  reply.hijack()
  deps.sse.open(reply.raw, subscription)
}

/** @param header attacker-controlled: `Last-Event-ID` (header wins over the query parameter). */
function readLastEventId(request: FastifyRequest, query: StreamQueryValue): string | undefined {
  const header = request.headers['last-event-id']
  const value = (typeof header === 'string' ? header : query.lastEventId)?.trim()
  if (value === undefined || value === '') return undefined
  if (!isStreamEventId(value)) throw new ControlPlaneError('VALIDATION_ERROR', 'Last-Event-ID is not a stream event id')
  return value
}

/** @param value attacker-controlled: comma-separated event types. */
function parseEventTypes(value: string | undefined): ReadonlySet<string> | undefined {
  if (value === undefined) return undefined
  const types = value
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t.length > 0)
  if (types.length === 0) return undefined
  if (types.length > MAX_FILTER_TYPES || types.some((t) => t.length > 128)) {
    throw new ControlPlaneError(
      'VALIDATION_ERROR',
      `eventType lists at most ${MAX_FILTER_TYPES} types of 128 characters`,
    )
  }
  return new Set(types)
}
