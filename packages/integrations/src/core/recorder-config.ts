/**
 * The one configuration object every adapter takes (issue 24 "Common to all"): where to publish, which key signs
 * which agent's steps, the control-plane run the steps belong to, which steps to record, what must not leave the
 * process, and what happens when a publication fails.
 */
import type { ProducerKey } from '@acdp/protocol'

/** What kind of framework step a record is. */
export type StepKind = 'model' | 'tool' | 'node'

/** The frameworks the adapters record. */
export type Framework = 'ai-sdk' | 'openai-agents' | 'langgraph'

/**
 * `record-or-fail`: a step waits for its context to be published (bounded by `publishDeadlineMs`) and fails with a
 * {@link RecordingError} when it cannot be. `best-effort`: a step never waits on the network; a publication that
 * fails or cannot be queued is counted in {@link RecorderStats} and the agent goes on.
 */
export type FailurePolicy = 'record-or-fail' | 'best-effort'

/** One step as an adapter hands it to the recorder. */
export interface StepInput {
  kind: StepKind
  /** The agent, tool or node name. */
  name: string
  /** Selects the signing key in {@link RecorderConfig.keys}; default the step's agent (`agent`) or `name`. */
  role?: string
  /** The agent the step belongs to, when the framework says (a tool call's or a handoff's agent). */
  agent?: string
  /** What the step produced (JSON-serializable; bigger than `maxOutputBytes` is cut and hashed). */
  output: unknown
  /** Records or ctx_ids of the inputs that produced it: become `derived_from`. */
  derivedFrom?: ReadonlyArray<RecordRef>
  /** Framework facts worth keeping (model id, tool call id, finish reason…), JSON-serializable. */
  details?: Record<string, unknown>
}

/** A recorded step: its local id at once, its ctx_id when the registry has assigned it. */
export interface RecordHandle {
  /** Local id, unique in this recorder: pass it (or the handle) as another step's `derivedFrom`. */
  readonly id: string
  readonly kind: StepKind
  readonly name: string
  /** Resolves with the ctx_id, or undefined when the publication failed or was dropped (best-effort). */
  readonly ctxId: Promise<string | undefined>
}

/** A handle, a handle's local id, or a ctx_id (`acdp://…`) published elsewhere. */
export type RecordRef = RecordHandle | string

/** The control plane the run is announced to (POST /runs/started, POST /runs/:id/complete, HMAC-signed). */
export interface ControlPlaneRunTarget {
  /** Base URL, e.g. `http://127.0.0.1:3100`. */
  url: string
  /** The control plane's WEBHOOK_SECRET (or the enrolled registry's webhook secret with `registryAuthority`). */
  runSecret: string
  /** Sign as this enrolled registry and name it in the notices. */
  registryAuthority?: string
  /** Sent as X-Tenant-Id (and bound into the V2 signature). */
  tenantId?: string
}

/** The run every recorded step is filed under (the registry echoes `X-Run-Id` in its webhook). */
export interface RunConfig {
  /** Default: `<framework>-<timestamp>-<random>`. 1–255 printable ASCII characters. */
  id?: string
  /** `scenario_id` of POST /runs/started; default the framework's name. */
  scenarioId?: string
  /** When set, `startRun()` / `completeRun()` send the run notices; without it the run stays "running". */
  controlPlane?: ControlPlaneRunTarget
}

/** Options of every adapter. */
export interface RecorderConfig {
  /** Registry base URL. */
  registryUrl: string
  /** Signs every step whose role has no key of its own in `keys`. */
  key?: ProducerKey
  /** A key per agent role (see {@link StepInput.role}); a role without one uses `key`. */
  keys?: Readonly<Record<string, ProducerKey>>
  run?: RunConfig
  /** Default `record-or-fail`. */
  failurePolicy?: FailurePolicy
  /** Which step kinds to record; default all. */
  record?: ReadonlyArray<StepKind> | ((step: StepInput) => boolean)
  /**
   * Called with each context body before it is signed (after the recorder built it): return the body to publish,
   * e.g. with `metadata.output` members that must not leave the process removed. What it returns is what is signed.
   */
  redact?: (body: Record<string, unknown>, step: StepInput) => Record<string, unknown>
  /** `domain` of every context (optional member of the body). */
  domain?: string
  /** Context `type` per step; default `agent:<kind>` (a namespaced type, RFC-ACDP-0002). */
  typeOf?: (step: StepInput) => string
  /** Longest serialized output kept in `metadata.output`, in bytes; longer is cut and its SHA-256 kept. Default 32 KiB. */
  maxOutputBytes?: number
  /**
   * Bound on one publication including its retries, in milliseconds; a `record-or-fail` step waits at most this
   * long for its context. Default 10 s.
   */
  publishDeadlineMs?: number
  /** Deadline of one HTTP attempt, in milliseconds. Default 5 s. */
  attemptTimeoutMs?: number
  /** Retries after a 429, a 503 or no answer. Default 4. */
  maxRetries?: number
  /** First backoff in milliseconds (doubled each retry, with jitter, at most `publishDeadlineMs`). Default 100. */
  retryBaseMs?: number
  /** Publications in flight at once. Default 4. */
  concurrency?: number
  /**
   * Publications waiting at most (queued or in flight). A best-effort step that finds the queue full waits up to
   * `maxBlockMs` for room, then the record is dropped and counted. Default 1,000.
   */
  maxQueued?: number
  /** Longest a best-effort step waits for room in the queue, in milliseconds. Default 50. */
  maxBlockMs?: number
  /** Replaces global `fetch` for the registry and the control plane. */
  fetch?: typeof globalThis.fetch
  /** Told about every publication that failed (best-effort too); must not throw. */
  onError?: (error: RecordingError, step: StepInput) => void
}

/** A step's context could not be published (or queued). `cause` holds the last error. */
export class RecordingError extends Error {
  override readonly name = 'RecordingError'
  constructor(
    message: string,
    readonly reason: 'publish_failed' | 'deadline' | 'queue_full' | 'closed',
    options?: { cause?: unknown },
  ) {
    super(message, options)
  }
}

/** The defaults, in one place so the docs can state them. */
export const RECORDER_DEFAULTS = {
  failurePolicy: 'record-or-fail' as FailurePolicy,
  maxOutputBytes: 32 * 1024,
  publishDeadlineMs: 10_000,
  attemptTimeoutMs: 5_000,
  maxRetries: 4,
  retryBaseMs: 100,
  concurrency: 4,
  maxQueued: 1_000,
  maxBlockMs: 50,
} as const

const RUN_ID = /^[\x21-\x7e]{1,255}$/

/**
 * Checks the configuration once, so a mistake fails at set-up rather than at the first step.
 *
 * @throws TypeError naming the member that is wrong.
 */
export function checkRecorderConfig(config: RecorderConfig): void {
  let url: URL
  try {
    url = new URL(config.registryUrl)
  } catch {
    throw new TypeError(`registryUrl is not a URL: ${String(config.registryUrl)}`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new TypeError('registryUrl must be http(s)')
  if (config.key === undefined && (config.keys === undefined || Object.keys(config.keys).length === 0)) {
    throw new TypeError('a key (or keys per role) is required to sign the contexts')
  }
  if (config.run?.id !== undefined && !RUN_ID.test(config.run.id)) {
    throw new TypeError('run.id must be 1-255 printable ASCII characters without spaces')
  }
  if (config.failurePolicy !== undefined && !['record-or-fail', 'best-effort'].includes(config.failurePolicy)) {
    throw new TypeError('failurePolicy must be "record-or-fail" or "best-effort"')
  }
  for (const name of [
    'maxOutputBytes',
    'publishDeadlineMs',
    'attemptTimeoutMs',
    'retryBaseMs',
    'concurrency',
    'maxQueued',
  ] as const) {
    const value = config[name]
    if (value !== undefined && (!Number.isSafeInteger(value) || value < 1)) {
      throw new TypeError(`${name} must be a positive integer`)
    }
  }
  for (const name of ['maxRetries', 'maxBlockMs'] as const) {
    const value = config[name]
    if (value !== undefined && (!Number.isSafeInteger(value) || value < 0)) {
      throw new TypeError(`${name} must be a non-negative integer`)
    }
  }
  const controlPlane = config.run?.controlPlane
  if (controlPlane !== undefined) {
    try {
      new URL(controlPlane.url)
    } catch {
      throw new TypeError(`run.controlPlane.url is not a URL: ${String(controlPlane.url)}`)
    }
    if (typeof controlPlane.runSecret !== 'string' || controlPlane.runSecret === '') {
      throw new TypeError('run.controlPlane.runSecret is required to sign the run notices')
    }
  }
}
