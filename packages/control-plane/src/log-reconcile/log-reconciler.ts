/**
 * The log reconciliation: every acknowledged publish of a registry with a transparency log is a leaf of that log
 * (RFC-ACDP-0012 §4), whereas its webhook is best-effort (an in-memory queue, dropped when full, when retries run
 * out, or when the registry dies). So the control plane walks each enrolled registry's log (`GET /log/entries`,
 * §8.3) from a per-registry cursor and, for every leaf whose publication it does not hold, reads the context from
 * the registry (`GET /contexts/…`) and ingests the publication it missed, marked `recovered_from_log` — through
 * the same validation, projections and bus as a webhook. Publications are keyed by ctx_id (ingest's
 * publicationKey), so a webhook arriving after the recovery, or a recovery after the webhook, stores nothing.
 *
 * Bounded work: at most `maxEntries` leaves per registry per sweep, `concurrency` registries at a time, every
 * request through the SSRF-safe outbound client under `requestTimeoutMs`; a registry is reconciled by one instance
 * at a time (the cursor's lease). A leaf whose context we may not read (no `leaf` in the entry, or 401/403/404 on
 * the context) is counted `unreadable` and passed; an environmental failure stops the registry's walk at that leaf
 * until the next sweep. The run id travels with the webhook only (X-Run-Id echoed as `run_id`); a recovered
 * publication keeps a run when its body names one in `metadata.run_id`. Every leaf matched to a held publication
 * (held already, or recovered from it) is recorded with its log id and index (migration 0870): the receipt-audit
 * summary's log evidence.
 *
 * Lifecycle events (RFC-ACDP-0013) have no log leaf: for a registry advertising `acdp-registry-lifecycle`, those
 * served with a context read for a recovery are recovered with it, and each walk also re-reads up to
 * `lifecyclePageSize` of the registry's held publications, round-robin from a per-registry position, recovering
 * the lifecycle events served with them that the control plane missed (lifecycle-recovery.ts).
 */
import { isProtocolError, type KeyResolver, type OutboundClient, parseJsonStrict } from '@acdp/protocol'
import { createPeriodicSweep } from '../core/periodic-sweep.js'
import { Counter, type Registry } from 'prom-client'
import { ControlPlaneError } from '../core/errors.js'
import type { ClaimedLog, LeafMatch, LogReconcileStore } from './log-reconcile-store.js'
import { type IngestContext, publicationKey, recordEvent } from '../ingest/ingest.js'
import { type LifecycleRecoveryResult, recoverLifecycleEvents } from './lifecycle-recovery.js'
import { WitnessFetchFailure, type WitnessRegistryClient } from '../witness/witness-registry-client.js'
import { startWorkDeadline } from '../core/work-deadline.js'

export interface LogReconcileSettings {
  intervalMs: number
  maxEntries: number
  pageSize: number
  concurrency: number
  requestTimeoutMs: number
  leaseMs: number
  /** Held publications whose lifecycle events are re-read per walk of a lifecycle registry (0: none). */
  lifecyclePageSize: number
}

export interface LogReconcilerDeps {
  store: LogReconcileStore
  ingest: IngestContext
  registryClient: Pick<WitnessRegistryClient, 'capabilities' | 'checkpoint'>
  outbound: OutboundClient
  /** Verifies the signatures of recovered lifecycle events (RFC-ACDP-0013 §5). */
  resolver: KeyResolver
  clock: () => Date
  random: (size: number) => Uint8Array
  metrics: LogReconcileMetrics
  log?: { warn(object: unknown, message?: string): void }
}

export type EntryResult = 'held' | 'recovered' | 'unreadable' | 'refused'

export interface LogReconcileMetrics {
  recordEntry(result: EntryResult): void
  recordLifecycleEvent(result: LifecycleRecoveryResult): void
}

const LIFECYCLE_PROFILE = 'acdp-registry-lifecycle'

export interface LogReconciler {
  start(): void
  /** Reconciles every due registry now and waits (tests and benches). Returns the publications recovered. */
  reconcileNow(): Promise<number>
  close(): Promise<void>
}

const MAX_LOG_PAGE_BYTES = 2 * 1024 * 1024
const MAX_CONTEXT_BYTES = 1024 * 1024
const MAX_JSON_DEPTH = 64

/** Why a walk stopped early: environmental, retried next sweep. */
class WalkStopped extends Error {
  override readonly name = 'WalkStopped'
}

export function createLogReconciler(deps: LogReconcilerDeps, settings: LogReconcileSettings): LogReconciler {
  const owner = Buffer.from(deps.random(8)).toString('hex')
  let isClosed = false
  const aborter = new AbortController()

  async function sweep(): Promise<number> {
    const now = deps.clock().getTime()
    await deps.store.syncCursors(now)
    const claimed = await deps.store.claimDue({ owner, now, leaseMs: settings.leaseMs, limit: 1000 })
    let recovered = 0
    let next = 0
    const worker = async () => {
      while (next < claimed.length && !isClosed) {
        const registry = claimed[next++] as ClaimedLog
        recovered += await reconcile(registry)
      }
    }
    await Promise.all(Array.from({ length: Math.min(settings.concurrency, claimed.length) }, worker))
    return recovered
  }

  /** Walks one registry's log from its cursor; settles the cursor; returns the publications recovered. */
  async function reconcile(registry: ClaimedLog): Promise<number> {
    // Released as soon as this registry's walk ends: see work-deadline.ts for why this is not AbortSignal.any.
    const deadline = startWorkDeadline(aborter.signal, settings.leaseMs / 2)
    try {
      return await walk(registry, deadline.signal)
    } finally {
      deadline.release()
    }
  }

  async function walk(registry: ClaimedLog, signal: AbortSignal): Promise<number> {
    let index = registry.nextIndex
    let recovered = 0
    let failure: string | null = null
    let lifecycleAfter = registry.lifecycleAfter
    let lifecycle = false
    try {
      const capabilities = await deps.registryClient.capabilities(registry.authority, registry.baseUrl, signal)
      lifecycle = capabilities.profiles.includes(LIFECYCLE_PROFILE)
      if (!capabilities.advertisesLog) {
        failure = 'not_a_log'
      } else {
        const head = await deps.registryClient.checkpoint(registry.baseUrl, signal)
        const size = treeSizeOf(head.checkpoint)
        if (size === undefined) throw new WalkStopped('the checkpoint has no tree size')
        // First read of a pre-existing enrollment, or a reset log: start at the size.
        let position: number = index === null || index > size ? size : index
        index = position
        const stop = Math.min(size, position + settings.maxEntries)
        while (position < stop && !isClosed) {
          const end = Math.min(stop, position + settings.pageSize)
          const page = await readEntries(registry.baseUrl, position, end, signal)
          if (page.length === 0) throw new WalkStopped('the registry returned no entries')
          const held = await deps.store.heldPublications(
            registry.tenantId,
            page.flatMap((entry) => (entry.ctxId === undefined ? [] : [publicationKey(entry.ctxId)])),
          )
          // The cursor passes a leaf only once its match is recorded: a failed write re-reads the page next sweep.
          const matches: LeafMatch[] = []
          let reached = position
          try {
            for (const entry of page) {
              const result =
                entry.ctxId === undefined
                  ? 'unreadable'
                  : held.has(publicationKey(entry.ctxId))
                    ? 'held'
                    : await recover(registry, entry.ctxId, entry.logId, entry.index, lifecycle, signal)
              deps.metrics.recordEntry(result)
              if (result === 'recovered') recovered += 1
              if ((result === 'held' || result === 'recovered') && entry.ctxId !== undefined) {
                matches.push({ ctxId: entry.ctxId, logId: entry.logId, leafIndex: entry.index })
              }
              reached = entry.index + 1
            }
          } finally {
            if (matches.length > 0) {
              await deps.store.recordLeafMatches({
                tenantId: registry.tenantId,
                authority: registry.authority,
                matches,
                now: deps.clock().getTime(),
              })
            }
            position = reached
            index = reached
          }
        }
      }
    } catch (error) {
      failure = describe(error)
      if (!(error instanceof WalkStopped || error instanceof WitnessFetchFailure)) {
        deps.log?.warn({ err: error, authority: registry.authority }, 'log reconciliation stopped')
      }
    }
    if (lifecycle && settings.lifecyclePageSize > 0 && !isClosed) {
      try {
        await recheckLifecycle(registry, signal, (id) => (lifecycleAfter = id))
      } catch (error) {
        failure ??= `lifecycle: ${describe(error)}`
        if (!(error instanceof WalkStopped)) {
          deps.log?.warn({ err: error, authority: registry.authority }, 'lifecycle re-check stopped')
        }
      }
    }
    const now = deps.clock().getTime()
    await deps.store.settle({
      owner,
      authority: registry.authority,
      now,
      nextIndex: index,
      nextRunAt: now + settings.intervalMs,
      recovered,
      lastFailure: failure,
      lifecycleAfter,
    })
    return recovered
  }

  /**
   * Re-reads the next page of the registry's held publications after its lifecycle position and recovers the
   * lifecycle events they serve that we miss; `advance` records each context done (a short page wraps to 0, so
   * the next walk starts over from the oldest).
   */
  async function recheckLifecycle(registry: ClaimedLog, signal: AbortSignal, advance: (id: number) => void) {
    const page = await deps.store.publicationsAfter({
      tenantId: registry.tenantId,
      authority: registry.authority,
      afterId: registry.lifecycleAfter,
      limit: settings.lifecyclePageSize,
    })
    for (const publication of page) {
      if (isClosed) return
      const answer = await get(contextUrl(registry, publication.ctxId), MAX_CONTEXT_BYTES, signal)
      if (answer.status === 200 && isObject(answer.json)) {
        await recoverLifecycleEvents(lifecycleDeps, registry, publication.ctxId, answer.json)
      } else if (![401, 403, 404, 410].includes(answer.status)) {
        throw new WalkStopped(`GET /contexts answered ${answer.status}`)
      }
      advance(publication.id)
    }
    if (page.length < settings.lifecyclePageSize) advance(0)
  }

  const lifecycleDeps = {
    ingest: deps.ingest,
    resolver: deps.resolver,
    heldLifecycleEventIds: (tenantId: string, ctxId: string) => deps.store.heldLifecycleEventIds(tenantId, ctxId),
    clock: deps.clock,
    recordResult: (result: LifecycleRecoveryResult) => deps.metrics.recordLifecycleEvent(result),
    ...(deps.log ? { log: deps.log } : {}),
  }

  async function readEntries(
    baseUrl: string,
    start: number,
    end: number,
    signal: AbortSignal,
  ): Promise<Array<{ index: number; logId: string; ctxId: string | undefined }>> {
    const url = new URL(`log/entries?start=${start}&end=${end}`, baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`)
    const answer = await get(url, MAX_LOG_PAGE_BYTES, signal)
    if (answer.status !== 200) throw new WalkStopped(`GET /log/entries answered ${answer.status}`)
    const body = answer.json
    if (!isObject(body) || !Array.isArray(body['entries']) || typeof body['log_id'] !== 'string') {
      throw new WalkStopped('GET /log/entries is not a log entries page')
    }
    const logId = body['log_id']
    const entries = body['entries'] as unknown[]
    const page: Array<{ index: number; logId: string; ctxId: string | undefined }> = []
    for (const [offset, entry] of entries.entries()) {
      // Positions must be the ones asked for, in order: a page that skips or repeats cannot advance the cursor.
      if (!isObject(entry) || entry['leaf_index'] !== start + offset || start + offset >= end) {
        throw new WalkStopped('GET /log/entries answered out-of-order positions')
      }
      const leaf = entry['leaf']
      const ctxId = isObject(leaf) && typeof leaf['ctx_id'] === 'string' ? leaf['ctx_id'] : undefined
      page.push({ index: start + offset, logId, ctxId })
    }
    return page
  }

  /** Reads the context and ingests its publication, marked recovered. */
  async function recover(
    registry: ClaimedLog,
    ctxId: string,
    logId: string,
    leafIndex: number,
    lifecycle: boolean,
    signal: AbortSignal,
  ): Promise<EntryResult> {
    const answer = await get(contextUrl(registry, ctxId), MAX_CONTEXT_BYTES, signal)
    if (answer.status === 401 || answer.status === 403 || answer.status === 404 || answer.status === 410) {
      return 'unreadable'
    }
    if (answer.status !== 200) throw new WalkStopped(`GET /contexts answered ${answer.status}`)
    const envelope = answer.json
    const body = isObject(envelope) ? envelope['body'] : undefined
    if (!isObject(envelope) || !isObject(body) || body['ctx_id'] !== ctxId) return 'refused'
    const receipt = isObject(envelope['registry_receipt']) ? envelope['registry_receipt'] : undefined
    const metadata = isObject(body['metadata']) ? body['metadata'] : undefined
    const payload: Record<string, unknown> = {
      type: 'context_published',
      registry_authority: registry.authority,
      ctx_id: ctxId,
      lineage_id: body['lineage_id'],
      agent_id: body['agent_id'],
      context_type: body['type'],
      visibility: body['visibility'],
      version: body['version'],
      created_at: body['created_at'],
      derived_from: body['derived_from'],
      ...(typeof metadata?.['run_id'] === 'string' ? { run_id: metadata['run_id'] } : {}),
      ...(receipt !== undefined ? { key_fingerprint: receipt['key_fingerprint'], registry_receipt: receipt } : {}),
      recovered_from_log: { log_id: logId, leaf_index: leafIndex },
    }
    try {
      await recordEvent(deps.ingest, {
        payload,
        rawBody: Buffer.from(JSON.stringify(payload)),
        registryAuthority: registry.authority,
        tenantId: registry.tenantId,
        receivedAt: deps.clock().getTime(),
        runIdHeader: undefined,
        eventIdHeader: undefined,
        isSignatureVerified: false,
      })
    } catch (error) {
      // The context does not make a valid publication (another authority's ctx_id, a gated type…): not retried.
      if (error instanceof ControlPlaneError && error.statusCode < 500) return 'refused'
      throw error
    }
    // The events served with it were missed with it (a context retracted before its webhook got through).
    if (lifecycle) await recoverLifecycleEvents(lifecycleDeps, registry, ctxId, envelope)
    return 'recovered'
  }

  async function get(url: string | URL, maxBodyBytes: number, signal: AbortSignal) {
    let response
    try {
      response = await deps.outbound.request(url, {
        headers: { accept: 'application/acdp+json, application/json' },
        totalTimeoutMs: settings.requestTimeoutMs,
        maxRedirects: 0,
        maxBodyBytes,
        signal,
      })
    } catch (error) {
      throw new WalkStopped(`request failed (${describe(error)})`)
    }
    let json: unknown
    if (response.status === 200) {
      try {
        json = parseJsonStrict(new TextDecoder('utf-8', { fatal: true }).decode(response.body), {
          maxDepth: MAX_JSON_DEPTH,
        })
      } catch {
        throw new WalkStopped('the registry answered a body that is not JSON')
      }
    }
    return { status: response.status, json }
  }

  const schedule = createPeriodicSweep(sweep, {
    intervalMs: settings.intervalMs,
    onError: (error) => deps.log?.warn({ err: error }, 'log reconciliation sweep failed; retried next interval'),
  })

  return {
    start: () => schedule.start(),
    reconcileNow: () => schedule.runNow(),
    async close() {
      if (isClosed) return
      isClosed = true
      aborter.abort()
      await schedule.stop()
    },
  }
}

function contextUrl(registry: ClaimedLog, ctxId: string): string {
  return `${registry.baseUrl.replace(/\/+$/, '')}/contexts/${encodeURIComponent(ctxId)}`
}

/** Registers `acdp_log_reconcile_entries_total{result}` and `acdp_log_reconcile_lifecycle_events_total{result}`. */
export function createLogReconcileMetrics(registry: Registry): LogReconcileMetrics {
  const entries = new Counter({
    name: 'acdp_log_reconcile_entries_total',
    help: 'Log leaves reconciled, by result: held (already ingested), recovered (ingested from the log), unreadable (not visible to us), refused (not a valid publication).',
    labelNames: ['result'] as const,
    registers: [registry],
  })
  const lifecycle = new Counter({
    name: 'acdp_log_reconcile_lifecycle_events_total',
    help: 'Served lifecycle events reconciled, by result: held (already ingested), recovered (ingested from the registry state), refused (not bound to the context or its signature does not verify).',
    labelNames: ['result'] as const,
    registers: [registry],
  })
  return {
    recordEntry: (result) => entries.inc({ result }),
    recordLifecycleEvent: (result) => lifecycle.inc({ result }),
  }
}

function treeSizeOf(checkpoint: unknown): number | undefined {
  if (!isObject(checkpoint)) return undefined
  const size = checkpoint['tree_size']
  return typeof size === 'number' && Number.isSafeInteger(size) && size >= 0 ? size : undefined
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function describe(error: unknown): string {
  if (error instanceof WitnessFetchFailure) return error.category
  if (isProtocolError(error)) return String(error.details?.['reason'] ?? error.code)
  return error instanceof Error ? error.message.slice(0, 200) : 'error'
}
