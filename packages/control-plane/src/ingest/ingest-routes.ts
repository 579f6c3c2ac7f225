/**
 * POST /ingest/acdp (public, HMAC) and GET /ingest/health (public). Product spec "Ingest".
 *
 * The body limit is enforced while the body streams in (`bodyLimit`; a declared Content-Length above it is
 * refused before reading), and the JSON depth limit by the strict parser's pre-scan before any value is built.
 */
import { Type } from 'typebox'
import { ingestEvent } from './ingest.js'
import { createDeliveryErrorHandler, readDeliveryHeaders } from './delivery-http.js'
import type { RoutePlugin } from '../core/route-context.js'

export const ingestRoutes: RoutePlugin = async (app, { config, deps, enrollments }) => {
  app.post(
    '/ingest/acdp',
    {
      // No body schema (the service checks the HMAC over the raw bytes first), so the contract is declared.
      config: { auth: 'hmac', body: 'required' },
      bodyLimit: config.ingest.maxBodyBytes,
      errorHandler: createDeliveryErrorHandler(deps.metrics),
      schema: {
        tags: ['ingest'],
        summary: 'Receive one signed registry webhook event',
        headers: Type.Object({
          'x-acdp-signature': Type.Optional(Type.String()),
          'x-acdp-signature-v2': Type.Optional(Type.String()),
          'x-acdp-event-id': Type.Optional(Type.String()),
          'x-run-id': Type.Optional(Type.String()),
          'x-tenant-id': Type.Optional(Type.String()),
        }),
      },
    },
    async (request, reply) => {
      await ingestEvent(
        { config, deps, enrollments },
        {
          rawBody: request.rawBody ?? Buffer.alloc(0),
          body: request.body,
          headers: readDeliveryHeaders(request),
        },
      )
      return reply.code(204).send()
    },
  )

  app.get(
    '/ingest/health',
    {
      config: { auth: 'public' },
      schema: {
        summary: 'Webhook ingest health',
        tags: ['ingest'],
        response: { 200: Type.Object({ ok: Type.Literal(true) }) },
      },
    },
    async () => ({ ok: true as const }),
  )
}
