/**
 * The receipt-audit sweep: a bounded background job that gives every ingested publication a receipt verdict
 * (receipt-audit-verdict.ts), oldest first, through a cursor over the event log.
 *
 * One sweep at a time across instances (the store's lease). Each round audits at most `batchSize` new
 * publications plus at most `batchSize` due retries, `concurrency` at a time, each under `requestTimeoutMs`, then
 * records all verdicts and moves the cursor in one transaction. The cursor stays `settleMs` behind the newest
 * event, so it never passes an id whose transaction may not have committed yet. `error` verdicts are retried with
 * exponential backoff up to `maxAttempts`, then kept as final `error`s; they are never trust flags.
 */
import { createPeriodicSweep } from '../core/periodic-sweep.js'
import { Counter, Histogram, type Registry } from 'prom-client'
import type { WebhookOutbox } from '../core/deps.js'
import type { AuditCandidate, AuditOutcome, ReceiptAuditStore, ReceiptVerdict } from './receipt-audit-store.js'
import type { EventBus } from '../events/event-bus.js'
import { auditPublication, type VerdictDeps } from './receipt-audit-verdict.js'
import { busEventFromStored } from '../events/sse-event.js'
import { startWorkDeadline } from '../core/work-deadline.js'

export interface ReceiptAuditSettings {
  intervalMs: number
  batchSize: number
  concurrency: number
  settleMs: number
  maxAttempts: number
  retryBaseMs: number
  leaseMs: number
}

export interface ReceiptAuditDeps {
  store: ReceiptAuditStore
  verdicts: VerdictDeps
  bus: EventBus
  webhookOutbox: WebhookOutbox | undefined
  clock: () => Date
  random: (size: number) => Uint8Array
  metrics: ReceiptAuditMetrics
  log?: { warn(object: unknown, message?: string): void; error(object: unknown, message?: string): void }
}

export interface ReceiptAuditMetrics {
  recordVerdict(verdict: ReceiptVerdict): void
  observeRound(seconds: number): void
}

export interface ReceiptAuditor {
  start(): void
  /**
   * Runs rounds until nothing is left to audit now (or the lease is held elsewhere); the deterministic entry point
   * of tests and benches. Returns how many verdicts were recorded.
   */
  sweepNow(): Promise<number>
  close(): Promise<void>
}

export function createReceiptAuditor(deps: ReceiptAuditDeps, settings: ReceiptAuditSettings): ReceiptAuditor {
  const owner = Buffer.from(deps.random(8)).toString('hex')
  let isClosed = false
  const aborter = new AbortController()

  /** One round: claim, read, audit, record. The number of verdicts recorded, or undefined when there is no work. */
  async function round(): Promise<number | undefined> {
    const startedAt = performance.now()
    const now = deps.clock().getTime()
    const cursor = await deps.store.claim({ owner, now, leaseMs: settings.leaseMs })
    if (cursor === undefined) return undefined
    const [fresh, retries] = await Promise.all([
      deps.store.nextPublications({
        afterSeq: cursor,
        settledBefore: now - settings.settleMs,
        limit: settings.batchSize,
      }),
      deps.store.dueRetries({ now, limit: settings.batchSize }),
    ])
    const candidates = [
      ...fresh.candidates,
      ...retries.filter((r) => !fresh.candidates.some((f) => f.eventSeq === r.eventSeq)),
    ]
    const cursorTo = fresh.scannedTo > cursor ? fresh.scannedTo : undefined
    if (candidates.length === 0 && cursorTo === undefined) return undefined
    const outcomes = await auditAll(candidates)
    // Closing mid-round: record nothing, so the cursor never passes a publication left unaudited.
    if (isClosed) return undefined
    const announced = await deps.store.record({
      owner,
      now: deps.clock().getTime(),
      cursorTo,
      outcomes,
      ...(deps.webhookOutbox ? { onEvent: (tx, event) => deps.webhookOutbox!.enqueue(tx, event) } : {}),
    })
    if (announced === undefined) return undefined // the lease moved on: another instance records these
    for (const outcome of outcomes) deps.metrics.recordVerdict(outcome.verdict)
    for (const event of announced) deps.bus.publish(busEventFromStored(event))
    deps.metrics.observeRound((performance.now() - startedAt) / 1000)
    return outcomes.length
  }

  async function auditAll(candidates: AuditCandidate[]): Promise<AuditOutcome[]> {
    const outcomes: AuditOutcome[] = new Array(candidates.length)
    let next = 0
    const worker = async () => {
      while (next < candidates.length && !isClosed) {
        const index = next++
        const candidate = candidates[index] as AuditCandidate
        outcomes[index] = await auditOne(candidate)
      }
    }
    await Promise.all(Array.from({ length: Math.min(settings.concurrency, candidates.length) }, worker))
    return outcomes
  }

  async function auditOne(candidate: AuditCandidate): Promise<AuditOutcome> {
    // Released as soon as this audit ends: see work-deadline.ts for why this is not AbortSignal.any.
    const deadline = startWorkDeadline(aborter.signal, deps.verdicts.requestTimeoutMs * 3)
    let verdict
    try {
      verdict = await auditPublication(deps.verdicts, candidate, deadline.signal)
    } catch (failure) {
      deps.log?.error({ err: failure, eventSeq: candidate.eventSeq }, 'receipt audit failed unexpectedly')
      verdict = { verdict: 'error' as const, discrepancies: [], detail: 'internal error', transient: true }
    } finally {
      deadline.release()
    }
    const attempt = candidate.attempts + 1
    const retryAt =
      verdict.verdict === 'error' && verdict.transient && attempt < settings.maxAttempts
        ? deps.clock().getTime() + settings.retryBaseMs * 2 ** (attempt - 1)
        : undefined
    return {
      candidate,
      verdict: verdict.verdict,
      discrepancies: verdict.discrepancies,
      detail: verdict.detail,
      retryAt,
    }
  }

  async function sweep(): Promise<number> {
    let total = 0
    for (;;) {
      if (isClosed) return total
      const recorded = await round()
      if (recorded === undefined) return total
      total += recorded
    }
  }

  const schedule = createPeriodicSweep(sweep, {
    intervalMs: settings.intervalMs,
    onError: (error) => deps.log?.warn({ err: error }, 'receipt audit sweep failed; retried next interval'),
  })

  return {
    start: () => schedule.start(),
    sweepNow: () => schedule.runNow(),
    async close() {
      if (isClosed) return
      isClosed = true
      aborter.abort()
      await schedule.stop()
      await deps.store.release(owner).catch(() => undefined)
    },
  }
}

/** Registers `acdp_receipt_audit_verdicts_total{verdict}` and `acdp_receipt_audit_round_seconds`. */
export function createReceiptAuditMetrics(registry: Registry): ReceiptAuditMetrics {
  const registers = [registry]
  const verdicts = new Counter({
    name: 'acdp_receipt_audit_verdicts_total',
    help: 'Receipt-audit verdicts recorded, by verdict (error = environmental, retried).',
    labelNames: ['verdict'] as const,
    registers,
  })
  const rounds = new Histogram({
    name: 'acdp_receipt_audit_round_seconds',
    help: 'Duration of one receipt-audit round (claim, fetch and verify a batch, record).',
    buckets: [0.01, 0.05, 0.1, 0.5, 1, 5, 15, 60],
    registers,
  })
  return {
    recordVerdict: (verdict) => verdicts.inc({ verdict }),
    observeRound: (seconds) => rounds.observe(seconds),
  }
}
