/**
 * GET /events (product spec "Events"): the tenant's event history, newest first, keyset-paged.
 */
import { Type } from 'typebox'
import { type EventListRequest, eventListQuery } from './events.js'
import { JSON_MEDIA_TYPE } from './list-json.js'
import type { RoutePlugin } from '../core/route-context.js'
import { EventPageShape } from '../response-schemas/events.js'

/** Default page size of GET /events (product spec "Limits": events limit default 500). */
export const EVENTS_DEFAULT_LIMIT = 500
/** Largest page of GET /events: an unbounded page would let one request read and serialize a whole tenant. */
export const EVENTS_MAX_LIMIT = 1000

const EventsQuery = Type.Object(
  {
    runId: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    eventType: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    excludeEventType: Type.Optional(
      Type.String({
        minLength: 1,
        maxLength: 64,
        description:
          'Leaves this event type out (e.g. `search_executed`, the reads a CLI search reports, which the console hides by default)',
      }),
    ),
    agentId: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
    registryAuthority: Type.Optional(Type.String({ minLength: 1, maxLength: 255 })),
    afterTs: Type.Optional(Type.String({ minLength: 1, maxLength: 40 })),
    beforeTs: Type.Optional(Type.String({ minLength: 1, maxLength: 40 })),
    cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: EVENTS_MAX_LIMIT })),
  },
  { additionalProperties: false },
)

type EventsQueryValue = Omit<EventListRequest, 'tenantId' | 'limit'> & { limit?: number }

export const eventRoutes: RoutePlugin = async (app, { eventPages }) => {
  app.get(
    '/events',
    {
      schema: {
        tags: ['events'],
        summary: "The tenant's event history, newest first, filtered and keyset-paged",
        querystring: EventsQuery,
        response: { 200: EventPageShape },
      },
    },
    async (request, reply) => {
      const { limit, ...filters } = request.query as EventsQueryValue
      const query = eventListQuery({ tenantId: request.tenantId, limit: limit ?? EVENTS_DEFAULT_LIMIT, ...filters })
      // Written as bytes (the response schema documents them; Fastify sends a Buffer as is).
      return reply.type(JSON_MEDIA_TYPE).send(await eventPages.read(query))
    },
  )
}
