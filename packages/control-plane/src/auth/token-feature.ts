/**
 * Assembles token authentication for one app instance: the auth store, the pinned key directory, this service's
 * signing key, the trusted issuers' JWKS cache, the shared deny list, the JWT verifier (a link of the credential
 * chain), the feed poller and the per-IP throttle of the token routes. buildApp puts `verifier` in the chain,
 * passes the feature to the routes and ties `start`/`close` to the app lifecycle.
 */
import type { OutboundClient } from '@acdp/protocol'
import { createJwksCache } from './jwks-cache.js'
import { createJwtSigner, type JwtSigner } from './jwt-signer.js'
import { createJwtVerifier, type JwtVerifier } from './jwt-verifier.js'
import { createPinnedKeyDirectory, type PinnedKeyDirectory, parsePinnedKeys } from './pinned-keys.js'
import type { ControlPlaneConfig, Environment } from '../core/config.js'
import type { ControlPlaneDeps } from '../core/deps.js'
import { createIpThrottle, type IpThrottle } from '../core/http/ip-throttle.js'
import { type ControlPlaneAuthStore, createAuthStore } from './auth-store.js'
import type { AuthMetrics } from './auth-metrics.js'
import { type ControlPlaneFeedPoller, createRevocationFeedPoller } from './revocation-feed-poller.js'
import { createRevocationList, type RevocationList } from './revocation-list.js'

export interface TokenFeature {
  authStore: ControlPlaneAuthStore
  pinned: PinnedKeyDirectory
  /** Undefined when no signing key is configured (issuance and own-token verification off). */
  signer: JwtSigner | undefined
  verifier: JwtVerifier
  revocations: RevocationList
  feeds: ControlPlaneFeedPoller
  throttle: IpThrottle
  metrics: AuthMetrics
  /** Re-reads CONTROL_PLANE_PINNED_KEYS; returns the problems (directory unchanged) or the new key count. */
  reloadPinnedKeys(): { count: number } | { problems: string[] }
  start(): Promise<void>
  close(): void
}

type Log = {
  info(object: unknown, message?: string): void
  warn(object: unknown, message?: string): void
  error(object: unknown, message?: string): void
}

export async function createTokenFeature(input: {
  config: ControlPlaneConfig
  deps: Pick<ControlPlaneDeps, 'database' | 'clock' | 'readEnvironment'>
  outbound: OutboundClient
  log: Log
  metrics: AuthMetrics
}): Promise<TokenFeature> {
  const { config, deps, outbound, log, metrics } = input
  const tokens = config.tokens
  const authStore = createAuthStore(deps.database as Parameters<typeof createAuthStore>[0])
  const pinned = createPinnedKeyDirectory(parsePinnedKeys(tokens.pinnedKeys).keys)
  const signer = await createJwtSigner(tokens)
  const now = (): number => deps.clock().getTime()
  const revocations = createRevocationList({
    authStore,
    clock: deps.clock,
    syncIntervalMs: tokens.revocationSyncMs,
    log,
  })
  const jwks = createJwksCache({ outbound, now, log })
  const verifier = createJwtVerifier({ tokens, signer, jwks, revocations, clock: deps.clock })
  const feeds = createRevocationFeedPoller({
    feeds: tokens.revocationFeeds,
    authStore,
    revocations,
    outbound,
    now,
    log,
    onApplied: () => metrics.tokenRevocations.inc({ source: 'feed' }),
  })
  const readEnvironment = deps.readEnvironment ?? ((): Environment => ({}))
  return {
    authStore,
    pinned,
    signer,
    verifier,
    revocations,
    feeds,
    throttle: createIpThrottle({ limit: tokens.throttleLimit, windowMs: tokens.throttleWindowMs }),
    metrics,
    reloadPinnedKeys() {
      const source = readEnvironment()['CONTROL_PLANE_PINNED_KEYS'] ?? tokens.pinnedKeys
      const parsed = parsePinnedKeys(source)
      if (parsed.problems.length > 0) return { problems: parsed.problems }
      pinned.replace(parsed.keys)
      return { count: parsed.keys.length }
    },
    async start() {
      await revocations.start()
      feeds.start()
    },
    close() {
      revocations.close()
      void feeds.stop()
    },
  }
}
