/**
 * The witness sweep of one instance: claims due registries (lease per registry, store-side), observes each one
 * with a bounded deadline and a bounded number in flight, and records the verdict — retained head moved and
 * checkpoint cosigned only on full success; alert persisted (and announced in the same transaction) on a
 * detection; failure counted otherwise, with the `unreachable` alert past the threshold.
 *
 * Several instances on one PostgreSQL share the work without coordination beyond the leases: a registry is
 * observed by one instance at a time, and an instance that dies leaves leases that expire.
 */
import { formatUuidV4 } from '../webhooks/webhook-subscriptions.js'
import { registryDidForAuthority } from '@acdp/protocol'
import type { WebhookOutbox } from '../core/deps.js'
import type { StoredEvent } from '../store/schema.js'
import type { ClaimedRegistry, WitnessStore } from './witness-store.js'
import type { EventBus } from '../events/event-bus.js'
import { busEventFromStored } from '../events/sse-event.js'
import type { WitnessIdentity } from './witness-identity.js'
import { type Observation, type ObservationDeps, observeRegistryLog } from './witness-observation.js'
import { nextPollAfter } from './witness-schedule.js'

/** Tuning of the sweep (from WitnessConfig). */
export interface WitnessPollerSettings {
  intervalMs: number
  concurrency: number
  pollTimeoutMs: number
  unreachableThreshold: number
  excludeAuthorities: readonly string[]
  checkpointsKept: number
  cosignaturesKeptPerLog: number
  /** How often the scheduler looks for due registries. */
  tickMs: number
  /** How often enrollments are turned into cursors. */
  syncEveryMs: number
}

export interface WitnessPollerDeps {
  store: WitnessStore
  observation: ObservationDeps
  identity: WitnessIdentity | undefined
  bus: EventBus
  webhookOutbox: WebhookOutbox | undefined
  clock: () => Date
  random: (size: number) => Uint8Array
  metrics: WitnessMetrics
  log?: { warn(object: unknown, message?: string): void; error(object: unknown, message?: string): void }
}

/** What the poller reports (metrics.ts implements it). */
export interface WitnessMetrics {
  recordWitnessCheck(result: 'witnessed' | 'alert' | 'failure' | 'not_a_log'): void
  recordWitnessAlert(reason: string): void
  recordCosignature(result: 'minted' | 'error'): void
}

export interface WitnessPoller {
  /** Starts the background schedule. */
  start(): void
  /**
   * Observes every registry that is due now (claiming in batches until none is left) and waits for them: the
   * deterministic entry point of tests and benches. Returns how many were observed.
   */
  pollDue(): Promise<number>
  /** Stops scheduling and waits for in-flight observations (each bounded by the poll deadline). Idempotent. */
  close(): Promise<void>
}

/** Builds the poller; nothing runs until `start()` or `pollDue()`. */
export function createWitnessPoller(deps: WitnessPollerDeps, settings: WitnessPollerSettings): WitnessPoller {
  const inFlight = new Set<Promise<void>>()
  const instanceId = hex(deps.random(8))
  let claimSerial = 0
  let lastSyncAt = Number.NEGATIVE_INFINITY
  let timer: NodeJS.Timeout | undefined
  let isClosed = false
  /** The running scheduler tick or pollDue: they never overlap, so pollDue sees every claim it must wait for. */
  let running: Promise<unknown> = Promise.resolve()
  /**
   * The last claim took every free slot, so more registries may be due: the schedule then refills a slot as soon as
   * an observation ends instead of waiting for the next tick (one claim per tick would cap the sweep at
   * `concurrency` observations per tick, whatever the registries' latency).
   */
  let mayHaveBacklog = false
  const now = () => deps.clock().getTime()

  async function syncIfStale(): Promise<void> {
    if (now() - lastSyncAt < settings.syncEveryMs) return
    lastSyncAt = now()
    await deps.store.syncCursors(now())
  }

  /** Claims up to the free capacity and starts those observations. */
  async function claimAndStart(): Promise<number> {
    const free = settings.concurrency - inFlight.size
    if (free <= 0 || isClosed) return 0
    claimSerial += 1
    const leaseOwner = `${instanceId}:${claimSerial}`
    const claimedAt = now()
    const claimed = await deps.store.claimDueRegistries({
      leaseOwner,
      now: claimedAt,
      leaseMs: settings.pollTimeoutMs + 30_000,
      limit: free,
      excluded: settings.excludeAuthorities,
    })
    mayHaveBacklog = claimed.length >= free
    for (const registry of claimed) {
      const poll: Promise<void> = observeAndRecord(registry, leaseOwner, claimedAt)
        .catch((error: unknown) =>
          deps.log?.error({ err: error, authority: registry.authority }, 'witness poll failed'),
        )
        .finally(() => {
          inFlight.delete(poll)
          if (mayHaveBacklog && timer !== undefined) tick()
        })
      inFlight.add(poll)
    }
    return claimed.length
  }

  async function observeAndRecord(registry: ClaimedRegistry, leaseOwner: string, claimedAt: number): Promise<void> {
    const controller = new AbortController()
    const deadline = setTimeout(() => controller.abort(), settings.pollTimeoutMs)
    let observation: Observation
    try {
      observation = await observeRegistryLog(deps.observation, registry, controller.signal)
    } finally {
      clearTimeout(deadline)
    }
    deps.metrics.recordWitnessCheck(observation.kind)
    const at = now()
    const settlement = {
      authority: registry.authority,
      leaseOwner,
      now: at,
      nextPollAt: nextPollAfter(
        { dueAt: registry.dueAt, claimedAt, settledAt: at },
        settings.intervalMs,
        settings.tickMs,
      ),
    }
    const registryDid = registryDidForAuthority(registry.authority)
    const onEvent = deps.webhookOutbox
      ? (tx: Parameters<WebhookOutbox['enqueue']>[0], event: StoredEvent) => deps.webhookOutbox!.enqueue(tx, event)
      : undefined

    switch (observation.kind) {
      case 'not_a_log':
        await deps.store.releaseLease(settlement)
        return
      case 'witnessed': {
        let cosignature: { json: string; witnessedAt: number } | null = null
        if (deps.identity !== undefined) {
          try {
            cosignature = {
              json: JSON.stringify(deps.identity.cosign(observation.checkpoint, new Date(at))),
              witnessedAt: at,
            }
            deps.metrics.recordCosignature('minted')
          } catch (error) {
            deps.metrics.recordCosignature('error')
            deps.log?.error({ err: error, authority: registry.authority }, 'witness: cosigning failed')
          }
        }
        const checkpoint = observation.checkpoint
        const outcome = await deps.store.recordWitnessed(
          {
            ...settlement,
            tenantId: registry.tenantId,
            logId: checkpoint.log_id,
            treeSize: checkpoint.tree_size,
            rootHash: checkpoint.root_hash,
            checkpointTimestamp: Date.parse(checkpoint.timestamp),
            rawCheckpoint: JSON.stringify(checkpoint),
            consistencyOk: observation.consistencyOk,
            quorum: observation.quorum,
            cosigners: observation.cosigners,
            cosignature,
            checkpointsKept: settings.checkpointsKept,
            cosignaturesKeptPerLog: settings.cosignaturesKeptPerLog,
          },
          registryDid,
          formatUuidV4(deps.random(16)),
          onEvent,
        )
        publish(outcome.cleared)
        return
      }
      case 'alert': {
        deps.metrics.recordWitnessAlert(observation.reason)
        const outcome = await deps.store.recordAlert(
          {
            tenantId: registry.tenantId,
            authority: registry.authority,
            reason: observation.reason,
            detail: observation.detail,
            now: at,
            newAlertId: formatUuidV4(deps.random(16)),
            registryDid,
          },
          { ...settlement, resetFailures: true },
          onEvent,
        )
        publish(outcome.event)
        return
      }
      case 'failure': {
        const failed = await deps.store.recordFailure({ ...settlement, failure: observation.failure })
        if (!failed.leaseHeld || failed.consecutiveFailures < settings.unreachableThreshold) return
        deps.metrics.recordWitnessAlert('unreachable')
        const outcome = await deps.store.recordAlert(
          {
            tenantId: registry.tenantId,
            authority: registry.authority,
            reason: 'unreachable',
            detail: {
              reason: 'unreachable',
              consecutive_failures: failed.consecutiveFailures,
              last_failure: observation.failure,
              ...(registry.head ? { log_id: registry.head.logId } : {}),
            },
            now: at,
            newAlertId: formatUuidV4(deps.random(16)),
            registryDid,
          },
          undefined,
          onEvent,
        )
        publish(outcome.event)
        return
      }
    }
  }

  /** After the commit: live streams of every instance (the webhook rows committed with the event). */
  function publish(event: StoredEvent | undefined): void {
    if (event !== undefined) deps.bus.publish(busEventFromStored(event))
  }

  let isTicking = false
  /** A tick was asked for while one ran (a slot freed during its claim): run once more right after. */
  let isTickWanted = false
  function tick(): void {
    if (isClosed) return
    if (isTicking) {
      isTickWanted = true
      return
    }
    isTicking = true
    isTickWanted = false
    running = running
      .then(async () => {
        await syncIfStale()
        await claimAndStart()
      })
      .catch((error: unknown) => deps.log?.error({ err: error }, 'witness: sweep failed'))
      .finally(() => {
        isTicking = false
        if (isTickWanted && timer !== undefined) tick()
      })
  }

  return {
    start() {
      if (timer !== undefined || isClosed) return
      timer = setInterval(tick, settings.tickMs)
      timer.unref()
      tick()
    },
    async pollDue() {
      const run = running.then(async () => {
        lastSyncAt = Number.NEGATIVE_INFINITY
        await syncIfStale()
        let observed = 0
        for (;;) {
          observed += await claimAndStart()
          if (inFlight.size === 0) return observed
          await Promise.race(inFlight)
        }
      })
      running = run.catch(() => undefined)
      return run
    },
    async close() {
      isClosed = true
      if (timer !== undefined) clearInterval(timer)
      timer = undefined
      await running
      await Promise.allSettled([...inFlight])
    },
  }
}

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('hex')
}
