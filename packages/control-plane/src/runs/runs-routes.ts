/**
 * Runs (product spec "Runs"): reads with key/JWT auth, and the two run notifications authenticated by the
 * same HMAC as ingest (checked before the body is validated, so unsigned callers learn nothing).
 */
import type { FastifyRequest } from 'fastify'
import { type Static, Type } from 'typebox'
import { authenticateDelivery, type DeliveryHeaders } from '../ingest/registry-delivery.js'
import { JSON_MEDIA_TYPE, runPageJson } from '../events/list-json.js'
import { completeRun, getRun, getRunLineage, listRunEvents, listRuns, startRun } from './runs.js'
import type { RunStatus } from '../store/store.js'
import { createDeliveryErrorHandler, readDeliveryHeaders } from '../ingest/delivery-http.js'
import type { RoutePlugin } from '../core/route-context.js'
import { EventPageShape } from '../response-schemas/events.js'
import { LineageShape, RunDetailShape, RunPageShape } from '../response-schemas/runs.js'
import { PRINTABLE_PATTERN } from '../core/printable.js'
import { getRunTrust } from '../receipt-audit/receipt-audit-views.js'

const RunId = Type.String({ minLength: 1, maxLength: 255, pattern: PRINTABLE_PATTERN })
const RunParams = Type.Object({ runId: RunId })
const Authority = Type.String({ minLength: 1, maxLength: 255, pattern: '^[A-Za-z0-9.:-]+$' })

const RunStartBody = Type.Object(
  {
    run_id: RunId,
    scenario_id: Type.String({ minLength: 1, maxLength: 128, pattern: PRINTABLE_PATTERN }),
    started_at: Type.Optional(Type.String({ maxLength: 40 })),
    inputs: Type.Optional(Type.Unknown()),
    registry_authority: Type.Optional(Authority),
  },
  { additionalProperties: false },
)

const RunCompleteBody = Type.Object(
  {
    status: Type.Union([Type.Literal('completed'), Type.Literal('failed'), Type.Literal('cancelled')]),
    result: Type.Optional(Type.Unknown()),
    registry_authority: Type.Optional(Authority),
  },
  { additionalProperties: false },
)

const RunListQuery = Type.Object(
  {
    status: Type.Optional(
      Type.Union([
        Type.Literal('running'),
        Type.Literal('completed'),
        Type.Literal('failed'),
        Type.Literal('cancelled'),
      ]),
    ),
    scenarioId: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    startedAfter: Type.Optional(Type.String({ minLength: 1, maxLength: 40 })),
    startedBefore: Type.Optional(Type.String({ minLength: 1, maxLength: 40 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200 })),
    offset: Type.Optional(Type.Integer({ minimum: 0, maximum: 1_000_000 })),
  },
  { additionalProperties: false },
)

const RunEventsQuery = Type.Object(
  {
    eventType: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  },
  { additionalProperties: false },
)

declare module 'fastify' {
  interface FastifyRequest {
    /** Tenant of an authenticated run notification (HMAC routes). */
    deliveryTenantId: string
  }
}

/**
 * The webhook headers of a run notification. On /runs/:runId/complete the run is named by the path, so the path
 * is what X-ACDP-Signature-V2 binds as the run: a captured V2 completion cannot be replayed onto another run.
 */
function deliveryHeadersOfNotice(request: FastifyRequest): DeliveryHeaders {
  const headers = readDeliveryHeaders(request)
  const pathRunId = (request.params as { runId?: unknown } | undefined)?.runId
  return typeof pathRunId === 'string' ? { ...headers, runId: pathRunId } : headers
}

export const runRoutes: RoutePlugin = async (app, { config, deps, enrollments, receiptAudit, eventPages }) => {
  app.decorateRequest('deliveryTenantId', '')

  /** HMAC check before validation; the body is attacker-controlled here, so only a string authority is used. */
  const authenticateNotice = async (request: FastifyRequest) => {
    const body = request.body as Record<string, unknown> | undefined
    const claimed = typeof body?.registry_authority === 'string' ? body.registry_authority.toLowerCase() : undefined
    const delivery = await authenticateDelivery(
      {
        ingest: config.ingest,
        requireTenant: config.auth.requireTenant,
        enrollments,
        nowSeconds: Math.floor(deps.clock().getTime() / 1000),
      },
      claimed,
      request.rawBody ?? Buffer.alloc(0),
      deliveryHeadersOfNotice(request),
    )
    request.deliveryTenantId = delivery.tenantId
  }
  const noticeOptions = {
    config: { auth: 'hmac' as const },
    bodyLimit: config.ingest.maxBodyBytes,
    errorHandler: createDeliveryErrorHandler(),
    preValidation: authenticateNotice,
  }

  app.post(
    '/runs/started',
    {
      ...noticeOptions,
      schema: { summary: 'Run-start notification (HMAC-signed)', tags: ['runs'], body: RunStartBody },
    },
    async (request, reply) => {
      await startRun(deps, request.deliveryTenantId, request.body as Static<typeof RunStartBody>)
      return reply.code(204).send()
    },
  )

  app.post(
    '/runs/:runId/complete',
    {
      ...noticeOptions,
      schema: {
        summary: 'Run-completion notification (HMAC-signed)',
        tags: ['runs'],
        params: RunParams,
        body: RunCompleteBody,
      },
    },
    async (request, reply) => {
      const { runId } = request.params as { runId: string }
      await completeRun(deps, request.deliveryTenantId, runId, request.body as Static<typeof RunCompleteBody>)
      return reply.code(204).send()
    },
  )

  app.get(
    '/runs',
    {
      schema: {
        summary: "The tenant's runs, filtered and paged",
        tags: ['runs'],
        querystring: RunListQuery,
        response: {
          200: RunPageShape,
        },
      },
    },
    async (request, reply) => {
      const { limit, offset, ...filters } = request.query as {
        status?: RunStatus
        scenarioId?: string
        startedAfter?: string
        startedBefore?: string
        limit?: number
        offset?: number
      }
      const page = await listRuns(deps, {
        tenantId: request.tenantId,
        limit: limit ?? 50,
        offset: offset ?? 0,
        ...filters,
      })
      // Written as text (the response schema documents it; Fastify sends a JSON string as is).
      return reply.type(JSON_MEDIA_TYPE).send(runPageJson(page))
    },
  )

  app.get(
    '/runs/:runId',
    {
      schema: {
        tags: ['runs'],
        summary: 'One run, with its receipt-audit summary in `trust`',
        params: RunParams,
        response: { 200: RunDetailShape },
      },
    },
    async (request) => {
      const { runId } = request.params as { runId: string }
      const run = await getRun(deps, request.tenantId, runId)
      return { ...run, trust: await getRunTrust(receiptAudit.store, request.tenantId, runId) }
    },
  )

  app.get(
    '/runs/:runId/lineage',
    {
      schema: {
        summary: "A run's lineage graph: contexts with lineage id and version, derived_from edges",
        tags: ['runs'],
        params: RunParams,
        response: { 200: LineageShape },
      },
    },
    async (request) => getRunLineage(deps, request.tenantId, (request.params as { runId: string }).runId),
  )

  app.get(
    '/runs/:runId/events',
    {
      schema: {
        summary: "A run's events, oldest first, keyset-paged",
        tags: ['runs'],
        params: RunParams,
        querystring: RunEventsQuery,
        response: { 200: EventPageShape },
      },
    },
    async (request, reply) => {
      const query = request.query as { eventType?: string; limit?: number; cursor?: string }
      const pageQuery = await listRunEvents(deps, {
        tenantId: request.tenantId,
        runId: (request.params as { runId: string }).runId,
        limit: query.limit ?? 200,
        ...(query.eventType === undefined ? {} : { eventType: query.eventType }),
        ...(query.cursor === undefined ? {} : { cursor: query.cursor }),
      })
      return reply.type(JSON_MEDIA_TYPE).send(await eventPages.read(pageQuery))
    },
  )
}
