/**
 * What every route plugin receives: the frozen configuration, the injected dependencies, and the shared
 * readiness state. Route plugins are listed in route-plugins.ts.
 */
import type { FastifyPluginAsync } from 'fastify'
import type { ControlPlaneConfig } from './config.js'
import type { ControlPlaneDeps } from './deps.js'
import type { AccessGates } from '../policy/access-gates.js'
import type { EnrollmentDirectory } from '../registries/enrollment-directory.js'
import type { EventPageReader } from '../events/event-page-reader.js'
import type { FederationDeps } from '../federation-proxy/federation-proxy.js'
import type { ReceiptAuditFeature } from '../receipt-audit/receipt-audit-setup.js'
import type { Readiness } from './readiness.js'
import type { RegistryTrust } from '../registries/registry-trust.js'
import type { SseHub } from '../streams/sse.js'
import type { TokenFeature } from '../auth/token-feature.js'
import type { WebhookFeature } from '../webhooks/webhook-delivery-setup.js'
import type { WitnessFeature } from '../witness/witness-setup.js'

export interface RouteContext {
  config: ControlPlaneConfig
  deps: ControlPlaneDeps
  readiness: Readiness
  /** The instance's stream hub (closed by buildApp's preClose hook). */
  sse: SseHub
  /** Cached registry enrollments (HMAC routes, enroll). */
  enrollments: EnrollmentDirectory
  /** The outbound webhook feature (subscription routes). */
  webhooks: WebhookFeature
  /** The transparency-log witness (state, alerts, cosignatures). */
  witness: WitnessFeature
  /** Token authentication (auth routes, capabilities' pinned keys). */
  tokens: TokenFeature
  /** Policy engine and quotas of the gated actions. */
  gates: AccessGates
  /** The federation proxy's outbound client and optional envelope verification. */
  federation: Pick<FederationDeps, 'outbound' | 'timeoutMs' | 'verifyEnvelope'>
  /** Enrolled registries' profiles, DID documents and log evidence, relayed for consumers that verify. */
  registryTrust: RegistryTrust
  /** Receipt-audit verdicts (runs' trust summaries, the discrepancy list). */
  receiptAudit: ReceiptAuditFeature
  /** Event pages as JSON bytes, with the instance's cache of written events (GET /events, a run's events). */
  eventPages: EventPageReader
}

/** A route plugin: registers routes (and only routes or route-scoped hooks) on the instance it is given. */
export type RoutePlugin = FastifyPluginAsync<RouteContext>

/**
 * Marks every route registered later on `app` (an encapsulated plugin instance) as public, for plugins whose
 * routes are public by spec but do not declare `config.auth` themselves.
 */
export function markRoutesPublic(app: Parameters<RoutePlugin>[0]): void {
  app.addHook('onRoute', (route) => {
    route.config = { ...(route.config ?? {}), auth: 'public' }
  })
}
