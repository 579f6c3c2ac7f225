/**
 * Outbound webhook subscriptions (product spec "Outbound webhooks"): `POST/GET/PATCH/DELETE /webhooks`, plus
 * `GET /webhooks/:id`, all key/JWT and tenant-scoped. Beyond the spec: `GET /webhooks/:id/deliveries` shows the
 * outbox state of a subscription and `POST /webhooks/:id/deliveries/:deliveryId/redeliver` re-queues one delivery
 * (the reference had no way to replay a failed delivery).
 *
 * Shapes: a subscription is `{ id, tenantId, url, events, active, createdAt, updatedAt }`; the creation response
 * (201) alone adds `secret`. `GET /webhooks` answers a bare array (the reference's shape, which its UI reads).
 * Unknown members in a body are refused with 400; unknown ids answer 404 NOT_FOUND.
 */
import type { FastifyInstance } from 'fastify'
import { type Static, Type } from 'typebox'
import { ControlPlaneError } from '../core/errors.js'
import { formatOptionalTimestamp, formatTimestamp } from '../core/http/wire-time.js'
import {
  createSubscription,
  deleteSubscription,
  getSubscription,
  isUuid,
  listSubscriptions,
  updateSubscription,
} from './webhook-subscriptions.js'
import type { WebhookRouteDeps } from './webhook-delivery-setup.js'
import type { DeliveryRecord } from './webhook-store.js'
import {
  CreatedWebhookSubscriptionShape,
  WebhookDeliveryListShape,
  WebhookDeliveryShape,
  WebhookSubscriptionListShape,
  WebhookSubscriptionShape,
} from '../response-schemas/webhooks.js'

const EventTypes = Type.Array(Type.String({ minLength: 1, maxLength: 128 }), { maxItems: 64 })
const CreateBody = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: 2048 }),
    events: Type.Optional(EventTypes),
    secret: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
    active: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
)
const UpdateBody = Type.Object(
  {
    url: Type.Optional(Type.String({ minLength: 1, maxLength: 2048 })),
    events: Type.Optional(EventTypes),
    secret: Type.Optional(Type.String({ minLength: 1, maxLength: 512 })),
    active: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false, minProperties: 1 },
)
const IdParams = Type.Object({ id: Type.String({ maxLength: 64 }) })
const DeliveryParams = Type.Object({ id: Type.String({ maxLength: 64 }), deliveryId: Type.String({ maxLength: 64 }) })
const DeliveriesQuery = Type.Object(
  { limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 200 })) },
  { additionalProperties: false },
)

/** The wire form of a delivery. */
function toDeliveryView(record: DeliveryRecord): Static<typeof WebhookDeliveryShape> {
  return {
    id: record.id,
    webhookId: record.webhookId,
    eventType: record.eventType,
    runId: record.runId,
    status: record.status,
    attempts: record.attempts,
    nextAttemptAt: record.status === 'pending' ? formatTimestamp(record.nextAttemptAt) : null,
    lastAttemptAt: formatOptionalTimestamp(record.lastAttemptAt),
    responseStatus: record.responseStatus,
    error: record.errorMessage,
    createdAt: formatTimestamp(record.createdAt),
    deliveredAt: formatOptionalTimestamp(record.deliveredAt),
  }
}

/** Registers the webhook routes. */
export function registerWebhookRoutes(app: FastifyInstance, deps: WebhookRouteDeps): void {
  app.post(
    '/webhooks',
    {
      schema: {
        summary: 'Create a webhook subscription',
        tags: ['webhooks'],
        body: CreateBody,
        response: { 201: CreatedWebhookSubscriptionShape },
      },
    },
    async (request, reply) => {
      const created = await createSubscription(deps, request.tenantId, request.body as Static<typeof CreateBody>)
      return reply.code(201).header('cache-control', 'no-store').send(created)
    },
  )

  app.get(
    '/webhooks',
    {
      schema: {
        summary: "The tenant's webhook subscriptions",
        tags: ['webhooks'],
        response: { 200: WebhookSubscriptionListShape },
      },
    },
    async (request) => listSubscriptions(deps, request.tenantId),
  )

  app.get(
    '/webhooks/:id',
    {
      schema: {
        summary: 'One webhook subscription',
        tags: ['webhooks'],
        params: IdParams,
        response: { 200: WebhookSubscriptionShape },
      },
    },
    async (request) => getSubscription(deps, request.tenantId, (request.params as { id: string }).id),
  )

  app.patch(
    '/webhooks/:id',
    {
      schema: {
        summary: 'Update a webhook subscription (URL, events, active, secret)',
        tags: ['webhooks'],
        params: IdParams,
        body: UpdateBody,
        response: { 200: WebhookSubscriptionShape },
      },
    },
    async (request) =>
      updateSubscription(
        deps,
        request.tenantId,
        (request.params as { id: string }).id,
        request.body as Static<typeof UpdateBody>,
      ),
  )

  app.delete(
    '/webhooks/:id',
    { schema: { summary: 'Delete a webhook subscription', tags: ['webhooks'], params: IdParams } },
    async (request, reply) => {
      await deleteSubscription(deps, request.tenantId, (request.params as { id: string }).id)
      return reply.code(204).send()
    },
  )

  app.get(
    '/webhooks/:id/deliveries',
    {
      schema: {
        summary: "A subscription's deliveries",
        tags: ['webhooks'],
        params: IdParams,
        querystring: DeliveriesQuery,
        response: { 200: WebhookDeliveryListShape },
      },
    },
    async (request) => {
      const { id } = request.params as { id: string }
      await getSubscription(deps, request.tenantId, id)
      const limit = (request.query as { limit?: number }).limit ?? 50
      const data = (await deps.webhookStore.listDeliveries(request.tenantId, id, limit)).map(toDeliveryView)
      return { data, total: data.length }
    },
  )

  app.post(
    '/webhooks/:id/deliveries/:deliveryId/redeliver',
    {
      schema: {
        summary: 'Queue a delivery again',
        tags: ['webhooks'],
        params: DeliveryParams,
        response: { 202: WebhookDeliveryShape },
      },
    },
    async (request, reply) => {
      const { id, deliveryId } = request.params as { id: string; deliveryId: string }
      const record =
        isUuid(id) && isUuid(deliveryId)
          ? await deps.webhookStore.requeueDelivery(request.tenantId, id, deliveryId, deps.clock().getTime())
          : undefined
      if (!record) throw new ControlPlaneError('NOT_FOUND', 'webhook delivery not found')
      deps.kickDelivery()
      return reply.code(202).send(toDeliveryView(record))
    },
  )
}
