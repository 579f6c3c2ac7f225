/**
 * The recorder the three adapters share: turns framework steps into signed contexts published to a registry under
 * one run id, with `derived_from` pointing at the contexts of the step's inputs.
 *
 * Publishing happens in the background through a bounded queue: a step hands its record over and goes on while
 * the context is signed and sent. A record waits for its parents' ctx_ids (the registry assigns them), so lineage
 * is exact even though the step did not wait. The failure policy decides what a step sees:
 *  - `record-or-fail`: the step awaits its own publication, at most `publishDeadlineMs`, and fails with a
 *    RecordingError when the context could not be published;
 *  - `best-effort`: the step waits at most `maxBlockMs` (only when the queue is full); failures are counted.
 */
import { randomBytes, randomUUID } from 'node:crypto'
import { createProducer, type Producer, type ProducerKey } from '@acdp/protocol'
import { publishWithRetry } from './publish-retry.js'
import {
  checkRecorderConfig,
  type FailurePolicy,
  type Framework,
  RECORDER_DEFAULTS,
  type RecorderConfig,
  RecordingError,
  type RecordHandle,
  type RecordRef,
  type StepInput,
} from './recorder-config.js'
import { type RunOutcome, sendRunCompleted, sendRunStarted } from './run-notices.js'
import { buildStepBody, defaultStepType } from './step-body.js'

/** Counters a caller (or a metrics exporter) reads at any time. */
export interface RecorderStats {
  /** Steps handed to the recorder and accepted by its filter. */
  accepted: number
  /** Contexts the registry stored. */
  published: number
  /** Publications that failed after their retries (or their deadline). */
  failed: number
  /** Records dropped because the queue stayed full for `maxBlockMs` (best-effort only). */
  dropped: number
  /** Retried attempts, summed over every publication. */
  retries: number
  /** Queued or in flight now. */
  pending: number
}

/** One published step, as `published()` lists them in order. */
export interface PublishedStep {
  id: string
  kind: StepInput['kind']
  name: string
  ctxId: string
  derivedFrom: string[]
}

export interface Recorder {
  readonly framework: Framework
  readonly runId: string
  readonly failurePolicy: FailurePolicy
  /**
   * Records one step. Resolves with its handle once the step may go on (see the module comment), or with
   * undefined when the filter skips it.
   *
   * @throws RecordingError under `record-or-fail` when the context could not be published in time.
   */
  record(step: StepInput): Promise<RecordHandle | undefined>
  /** The handle for a local id or a handle (undefined for a ctx_id or an unknown id). */
  handleOf(ref: RecordRef): RecordHandle | undefined
  /** Waits until every queued publication has settled. */
  flush(): Promise<void>
  /** POST /runs/started (needs `run.controlPlane`). */
  startRun(inputs?: unknown): Promise<void>
  /** Flushes, then POST /runs/:id/complete (needs `run.controlPlane`). */
  completeRun(status?: RunOutcome, result?: unknown): Promise<void>
  stats(): RecorderStats
  /** Steps published so far, in the order they were recorded (the most recent 10,000 records). */
  published(): PublishedStep[]
}

interface Entry {
  handle: RecordHandle
  step: StepInput
  sequence: number
  settled: Promise<void>
  done: boolean
  result?: PublishedStep
}

/**
 * Settled records kept for `published()` and for resolving local ids: a long-lived agent records without end, so
 * the oldest settled ones are forgotten (a handle held by the caller still resolves its ctx_id).
 */
const MAX_RETAINED = 10_000

/** Creates the recorder an adapter publishes through. @throws TypeError for a configuration mistake. */
export function createRecorder(framework: Framework, config: RecorderConfig): Recorder {
  checkRecorderConfig(config)
  const settings = { ...RECORDER_DEFAULTS, ...withoutUndefined(config) }
  const fetchFn = config.fetch ?? globalThis.fetch
  const runId = config.run?.id ?? defaultRunId(framework)
  const producers = new Map<ProducerKey, Producer>()
  const entries = new Map<string, Entry>()
  const order: Entry[] = []
  const counters = { accepted: 0, published: 0, failed: 0, dropped: 0, retries: 0 }
  const prefix = randomBytes(4).toString('hex')
  let sequence = 0
  let inFlight = 0
  const waiting: Array<() => void> = []
  const roomWaiters: Array<() => void> = []
  let queued = 0

  const producerFor = (step: StepInput): Producer => {
    const role = step.role ?? step.agent ?? step.name
    const key = config.keys?.[role] ?? config.key
    if (key === undefined) throw new TypeError(`no key for agent role "${role}" (and no default key)`)
    let producer = producers.get(key)
    if (producer === undefined) {
      producer = createProducer({
        registryUrl: config.registryUrl,
        key,
        fetch: fetchFn,
        timeoutMs: settings.attemptTimeoutMs,
      })
      producers.set(key, producer)
    }
    return producer
  }

  const shouldRecord = (step: StepInput): boolean => {
    const filter = config.record
    if (filter === undefined) return true
    return typeof filter === 'function' ? filter(step) : filter.includes(step.kind)
  }

  const acquireSlot = async (): Promise<void> => {
    if (inFlight < settings.concurrency) {
      inFlight += 1
      return
    }
    await new Promise<void>((resolve) => waiting.push(resolve))
  }
  const releaseSlot = () => {
    const next = waiting.shift()
    if (next === undefined) inFlight -= 1
    else next()
  }
  const releaseRoom = () => {
    queued -= 1
    roomWaiters.shift()?.()
  }

  /** Room in the queue within `maxBlockMs`, or false. */
  const waitForRoom = async (blockMs: number): Promise<boolean> => {
    if (queued < settings.maxQueued) return true
    if (blockMs <= 0) return false
    let timer: NodeJS.Timeout | undefined
    const gotRoom = await Promise.race([
      new Promise<boolean>((resolve) => roomWaiters.push(() => resolve(true))),
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), blockMs))),
    ])
    clearTimeout(timer)
    return gotRoom && queued < settings.maxQueued
  }

  /**
   * The ctx_ids of a step's inputs. A parent whose publication failed (best-effort) is replaced by its own
   * parents, so the lineage goes through the gap and names only contexts that exist.
   */
  const resolveParents = async (refs: ReadonlyArray<RecordRef>, depth = 0): Promise<string[]> => {
    const lists = await Promise.all(
      refs.map(async (ref): Promise<string[]> => {
        if (typeof ref === 'string' && !entries.has(ref)) return ref.startsWith('acdp://') ? [ref] : []
        const entry = entries.get(typeof ref === 'string' ? ref : ref.id)
        if (entry === undefined) {
          const ctxId = typeof ref === 'string' ? undefined : await ref.ctxId
          return ctxId === undefined ? [] : [ctxId]
        }
        const ctxId = await entry.handle.ctxId
        if (ctxId !== undefined) return [ctxId]
        return depth < 64 ? resolveParents(entry.step.derivedFrom ?? [], depth + 1) : []
      }),
    )
    return [...new Set(lists.flat())]
  }

  const publish = async (entry: Entry, deadline: number): Promise<string> => {
    const { step } = entry
    const producer = producerFor(step)
    const derivedFrom = await resolveParents(step.derivedFrom ?? [])
    await acquireSlot()
    try {
      let body = buildStepBody(step, {
        framework,
        sequence: entry.sequence,
        runId,
        maxOutputBytes: settings.maxOutputBytes,
        type: (config.typeOf ?? defaultStepType)(step),
        ...(config.domain === undefined ? {} : { domain: config.domain }),
      })
      body['derived_from'] = derivedFrom
      if (config.redact !== undefined) body = config.redact(body, step)
      let attempts = 0
      const countingProducer: Producer = {
        did: producer.did,
        keyId: producer.keyId,
        publish: (b, o) => {
          attempts += 1
          return producer.publish(b, o)
        },
      }
      try {
        const result = await publishWithRetry(
          countingProducer,
          body,
          { runId, idempotencyKey: randomUUID() },
          { maxRetries: settings.maxRetries, retryBaseMs: settings.retryBaseMs, deadline },
        )
        entry.result = { id: entry.handle.id, kind: step.kind, name: step.name, ctxId: result.ctxId, derivedFrom }
        return result.ctxId
      } finally {
        counters.retries += Math.max(0, attempts - 1)
      }
    } finally {
      releaseSlot()
    }
  }

  const fail = (step: StepInput, error: unknown, reason: RecordingError['reason']): RecordingError => {
    const failure =
      error instanceof RecordingError
        ? error
        : new RecordingError(
            `recording ${step.kind} "${step.name}" failed: ${error instanceof Error ? error.message : String(error)}`,
            reason,
            { cause: error },
          )
    try {
      config.onError?.(failure, step)
    } catch {
      // a failing listener must not change what the step sees
    }
    return failure
  }

  const forgetOldest = () => {
    while (order.length > MAX_RETAINED && order[0]!.done) entries.delete(order.shift()!.handle.id)
  }

  const recorder: Recorder = {
    framework,
    runId,
    failurePolicy: settings.failurePolicy,
    async record(step) {
      if (!shouldRecord(step)) return undefined
      producerFor(step) // a missing key is a set-up mistake: say so now, in both policies
      counters.accepted += 1
      const bestEffort = settings.failurePolicy === 'best-effort'
      // One bound for the whole record, the wait for room in the queue included.
      const deadline = performance.now() + settings.publishDeadlineMs
      if (!(await waitForRoom(bestEffort ? settings.maxBlockMs : settings.publishDeadlineMs))) {
        counters.dropped += bestEffort ? 1 : 0
        counters.failed += bestEffort ? 0 : 1
        const error = fail(step, new RecordingError('the recording queue is full', 'queue_full'), 'queue_full')
        if (bestEffort) return undefined
        throw error
      }
      queued += 1
      sequence += 1
      const id = `${prefix}-${sequence}`
      let resolveCtx!: (ctxId: string | undefined) => void
      const ctxId = new Promise<string | undefined>((resolve) => (resolveCtx = resolve))
      const handle: RecordHandle = { id, kind: step.kind, name: step.name, ctxId }
      const entry: Entry = { handle, step, sequence, settled: Promise.resolve(), done: false }
      entries.set(id, entry)
      order.push(entry)
      let failure: RecordingError | undefined
      entry.settled = publish(entry, deadline).then(
        (published) => {
          counters.published += 1
          resolveCtx(published)
        },
        (error: unknown) => {
          counters.failed += 1
          failure = fail(step, error, performance.now() >= deadline ? 'deadline' : 'publish_failed')
          resolveCtx(undefined)
        },
      )
      void entry.settled.finally(() => {
        entry.done = true
        releaseRoom()
        forgetOldest()
      })
      if (bestEffort) return handle
      await entry.settled
      if (failure !== undefined) throw failure
      return handle
    },
    handleOf(ref) {
      return typeof ref === 'string' ? entries.get(ref)?.handle : entries.has(ref.id) ? ref : undefined
    },
    async flush() {
      // Records added while flushing are waited for too; settled ones may be forgotten meanwhile.
      for (;;) {
        const pending = order.filter((entry) => !entry.done).map((entry) => entry.settled)
        if (pending.length === 0) return
        await Promise.all(pending)
      }
    },
    async startRun(inputs) {
      const controlPlane = config.run?.controlPlane
      if (controlPlane === undefined) throw new TypeError('startRun needs run.controlPlane in the configuration')
      await sendRunStarted(controlPlane, fetchFn, {
        runId,
        scenarioId: config.run?.scenarioId ?? framework,
        ...(inputs === undefined ? {} : { inputs }),
      })
    },
    async completeRun(status = 'completed', result) {
      const controlPlane = config.run?.controlPlane
      if (controlPlane === undefined) throw new TypeError('completeRun needs run.controlPlane in the configuration')
      await recorder.flush()
      const stats = recorder.stats()
      await sendRunCompleted(controlPlane, fetchFn, runId, {
        status,
        result: {
          ...(result === undefined ? {} : { outcome: result }),
          recorded: stats.published,
          failed: stats.failed,
          dropped: stats.dropped,
        },
      })
    },
    stats() {
      return { ...counters, pending: queued }
    },
    published() {
      return order.flatMap((entry) => (entry.result === undefined ? [] : [entry.result]))
    },
  }
  return recorder
}

function defaultRunId(framework: Framework): string {
  const stamp = new Date().toISOString().slice(0, 19).replace(/[-:]/g, '').replace('T', '-')
  return `${framework}-${stamp}-${randomBytes(3).toString('hex')}`
}

function withoutUndefined<T extends object>(value: T): Partial<T> {
  return Object.fromEntries(Object.entries(value).filter(([, member]) => member !== undefined)) as Partial<T>
}
