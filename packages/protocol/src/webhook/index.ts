// Public surface of webhook/: re-exports only.
export type { BoundWebhookHeaders } from './bound-hmac.js'
export { signWebhookV2, verifyWebhookV2 } from './bound-hmac.js'
export { WEBHOOK_HEADERS } from './headers.js'
export { signWebhookBody, verifyWebhookSignature, WEBHOOK_SIGNATURE_PREFIX } from './hmac.js'
export type { TimestampedWebhookCheck } from './timestamped-hmac.js'
export { signTimestampedWebhook, verifyTimestampedWebhook } from './timestamped-hmac.js'
