/**
 * What runs beside the routes while the app does: the publish-outcome event, the revocation-feed poller, the
 * transparency log's start-up self-check and node-cache warm-up, witness polling, and the sweep of expired
 * idempotency and auth records. Started on `onReady`, stopped on `onClose`.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { RegistryRevocationFeedPoller } from './auth/revocation-feed-poller.js'
import type { RegistryContext } from './registry-context.js'

/** How often expired Idempotency-Key records are deleted (they are ignored as soon as they expire). */
export const IDEMPOTENCY_SWEEP_INTERVAL_MS = 10 * 60_000

/** Installs the hooks; call after every feature is mounted. */
export function installBackgroundWork(app: FastifyInstance, context: RegistryContext): void {
  const { config, deps, auth, pins, rateLimits, transparencyLog, witnesses } = context
  app.addHook('onResponse', (request: FastifyRequest, reply, done) => {
    if (request.method === 'POST' && request.routeOptions.url === '/contexts' && deps.events.has('publish_outcome')) {
      const outcome =
        reply.statusCode === 201
          ? 'inserted'
          : reply.statusCode === 200
            ? 'idempotent_replay'
            : (request.acdpErrorCode ?? 'internal_error')
      deps.events.emit({ type: 'publish_outcome', outcome })
    }
    done()
  })

  // Peers' revocations are enforced by bearer auth: polled only when it is on.
  const feedPoller =
    auth && config.auth.revocation_feeds.length > 0 && deps.revocationFeedStore && deps.outbound
      ? new RegistryRevocationFeedPoller(
          { store: deps.revocationFeedStore, outbound: deps.outbound, clock: deps.clock, log: app.log },
          config.auth.revocation_feeds,
        )
      : undefined

  let sweepTimer: NodeJS.Timeout | undefined
  const warmAbort = new AbortController()
  app.addHook('onReady', async () => {
    rateLimits.startPruning()
    feedPoller?.start()
    if (pins && pins.validCount(deps.clock().getTime()) === 0) {
      app.log.warn({ pinned_keys: pins.count }, 'playground: no pinned key is valid now')
    }
    if (transparencyLog) {
      // A log whose stored history no longer matches what was signed is not served (the reason is logged). The
      // start-up check anchors on the last signed checkpoint; signing one over the checked tree right after it
      // passes makes the next start's check cover only what is appended from now on (log-self-check.ts).
      const check = await transparencyLog.selfCheck('since-checkpoint')
      if (check.ok) {
        await transparencyLog.currentCheckpoint()
        app.log.info(
          { tree_size: check.treeSize, anchor_tree_size: check.checkpointTreeSize },
          'transparency log self-check passed',
        )
        // Not awaited: readiness never waits for the node cache (proofs served meanwhile fill it too).
        transparencyLog.warmNodeCache(warmAbort.signal).then(
          (nodes) => app.log.debug({ nodes }, 'transparency log node cache warmed'),
          (error: unknown) => app.log.warn({ err: error }, 'transparency log node cache warm-up failed'),
        )
      } else app.log.error({ tree_size: check.treeSize, reason: check.reason }, 'transparency log self-check FAILED')
    }
    witnesses?.start()
    sweepTimer = setInterval(() => {
      deps.store.sweepIdempotencyRecords(deps.clock().getTime()).catch((error: unknown) => {
        app.log.warn({ err: error }, 'idempotency sweep failed')
      })
      deps.authStore?.sweepExpired(deps.clock().getTime()).catch((error: unknown) => {
        app.log.warn({ err: error }, 'auth state sweep failed')
      })
    }, IDEMPOTENCY_SWEEP_INTERVAL_MS)
    sweepTimer.unref()
  })
  app.addHook('onClose', async () => {
    warmAbort.abort()
    rateLimits.stopPruning()
    await feedPoller?.stop()
    witnesses?.stop()
    if (sweepTimer) clearInterval(sweepTimer)
  })
}
