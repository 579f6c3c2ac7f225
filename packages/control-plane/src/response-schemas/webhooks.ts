/** Outbound webhook subscriptions and their deliveries (the outbox state of a subscription). */
import { Type } from 'typebox'
import { Nullable, Timestamp } from './common.js'

export const WebhookSubscriptionShape = Type.Object({
  id: Type.String(),
  tenantId: Type.String(),
  url: Type.String(),
  events: Type.Array(Type.String(), { description: 'event types delivered; empty = every type' }),
  active: Type.Boolean(),
  createdAt: Timestamp,
  updatedAt: Timestamp,
})

/** POST /webhooks (201): the only answer that carries the signing secret. */
export const CreatedWebhookSubscriptionShape = Type.Object({
  ...WebhookSubscriptionShape.properties,
  secret: Type.String({ description: 'the signing secret, shown once' }),
})

/** GET /webhooks: a bare array (the reference's shape). */
export const WebhookSubscriptionListShape = Type.Array(WebhookSubscriptionShape)

export const WebhookDeliveryShape = Type.Object({
  id: Type.String(),
  webhookId: Type.String(),
  eventType: Type.String(),
  runId: Nullable(Type.String()),
  status: Type.Union([Type.Literal('pending'), Type.Literal('delivered'), Type.Literal('failed')]),
  attempts: Type.Integer(),
  nextAttemptAt: Type.Union([Timestamp, Type.Null()], { description: 'set while pending' }),
  lastAttemptAt: Nullable(Timestamp),
  responseStatus: Nullable(Type.Integer()),
  error: Nullable(Type.String()),
  createdAt: Timestamp,
  deliveredAt: Nullable(Timestamp),
})

/** GET /webhooks/:id/deliveries. */
export const WebhookDeliveryListShape = Type.Object({ data: Type.Array(WebhookDeliveryShape), total: Type.Integer() })
