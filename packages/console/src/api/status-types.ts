/**
 * Status reads of the Observability and Security pages, derived from the control plane's response schemas (see
 * ./types.ts): an enrolled registry's probes, the peers' revocation feeds.
 */
import type { PeerFeedShape, RegistryProbeShape } from '@acdp/control-plane/response-schemas'
import type { Static } from 'typebox'

/** One probe of GET /registries/:authority/health. */
export type RegistryProbe = Static<typeof RegistryProbeShape>

/** GET /registries/:authority/health: the registry's /healthz and /readyz, asked now by the control plane. */
export type { RegistryHealth } from '@acdp/control-plane/response-schemas'

/** One entry of GET /auth/revocation-feeds (admin). */
export type PeerFeed = Static<typeof PeerFeedShape>
