/**
 * The production cross-registry resolver: one capabilities cache per process shared by the origin identity
 * check (RFC-ACDP-0006 §4.1 steps 2–3) and the evidence verifier (RFC-ACDP-0010 §8, RFC-ACDP-0012 §9.1), so every
 * origin is bound to its authority before its context is fetched and its evidence is checked against the same
 * capabilities document.
 */
import type { OutboundClient } from '@acdp/protocol'
import type { CrossRegistryResolver, KeyResolver } from '../core/deps.js'
import { createCrossRegistryResolver } from './cross-registry.js'
import { createOriginCapabilities } from './origin-capabilities.js'
import { createOriginIdentityCheck, type TrustedOrigin } from './origin-identity.js'
import { createUpstreamEvidenceVerifier } from './upstream-evidence.js'

export interface FederatedResolverDeps {
  client: Pick<OutboundClient, 'request'>
  resolver: KeyResolver
  clock: () => Date
  /** `registry.trusted_origins` (none by default). */
  trustedOrigins: readonly TrustedOrigin[]
  /** Tests reach loopback origins here; production uses `https://<authority>`. */
  originBaseUrl?: (authority: string) => string
  onOutcome?: (outcome: string) => void
  onUnknownStatus?: (authority: string, status: string) => void
}

export function createFederatedResolver(deps: FederatedResolverDeps): CrossRegistryResolver {
  const capabilities = createOriginCapabilities({ client: deps.client, clock: deps.clock })
  return createCrossRegistryResolver({
    client: deps.client,
    ...(deps.originBaseUrl ? { originBaseUrl: deps.originBaseUrl } : {}),
    checkOrigin: createOriginIdentityCheck({ capabilities, trustedOrigins: deps.trustedOrigins }),
    verifyEvidence: createUpstreamEvidenceVerifier({
      client: deps.client,
      resolver: deps.resolver,
      clock: deps.clock,
      capabilities,
    }),
    ...(deps.onOutcome ? { onOutcome: deps.onOutcome } : {}),
    ...(deps.onUnknownStatus ? { onUnknownStatus: deps.onUnknownStatus } : {}),
  })
}
