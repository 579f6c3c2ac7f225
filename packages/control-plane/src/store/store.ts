/**
 * The control plane store contract: persistence only, no HTTP, no business rules beyond the atomicity each
 * method promises. One implementation (kysely-store.ts) serves both SQLite and PostgreSQL; the contract suite
 * (test/store-contract.test.ts) runs against both.
 *
 * Conventions: times are epoch milliseconds; absent rows are `undefined` (the service decides what absence
 * means); every tenant-owned read and write takes the tenant id explicitly, never a default.
 */
import type { Kysely } from 'kysely'
import type { RunStatus } from '../response-schemas/runs.js'
import type { ControlPlaneTables, EventAttributes } from './schema.js'

/**
 * The open transaction handed to in-transaction hooks (the webhook outbox). Statements issued on it commit or
 * roll back with the event. Feature code with its own tables types it with `tx.withTables<…>()`.
 */
export type StoreTransaction = Kysely<ControlPlaneTables>

// Run statuses (product spec "Run") are the wire's union: a run row holds one of them.
export type { RunStatus }

/** Scenario recorded until an event or a start notification names one. */
export const UNKNOWN_SCENARIO = 'unknown'

/** A validated event ready to persist (built by the ingest service). */
export interface NewEvent extends EventAttributes {
  tenantId: string
  dedupKey: string
  type: string
  eventTs: number
  receivedAt: number
  /** From the signed payload; stored on the observed registry row when present. */
  registryBaseUrl: string | null
  rawPayload: string
  /** True for context_published: counts as a context for runs, agents and the dashboard. */
  isPublish: boolean
  /** DID method of the producing agent for publishes (`key`, `web`…), else null. */
  didMethod: string | null
  /** Set for context_retracted / context_republished: the lifecycle projection to apply. */
  lifecycle: { retracted: boolean; actor: string | null; reason: string | null } | null
  /** Start of the dashboard rollup bucket the event counts in (from receivedAt). */
  bucketStart: number
}

/** A persisted event row without its body (what the stream replays). */
export interface EventSummary extends EventAttributes {
  id: number
  tenantId: string
  type: string
  eventTs: number
  receivedAt: number
}

/** A persisted event row. */
export interface EventRecord extends EventSummary {
  /** The body exactly as received. */
  rawPayload: string
}

/** A run row plus its registry set. */
export interface RunRecord {
  tenantId: string
  runId: string
  scenarioId: string
  status: RunStatus
  startedAt: number
  completedAt: number | null
  /** The start notification's inputs as stored JSON text, or null. Kept as text so listings embed it unparsed. */
  inputsJson: string | null
  /** The completion notification's result as stored JSON text, or null. */
  resultJson: string | null
  eventsCount: number
  contextsCount: number
  registries: string[]
  createdAt: number
  updatedAt: number
}

/** One context_published event of a run, in (event_ts, id) order, with its lifecycle state. */
export interface RunPublication {
  ctxId: string
  agentId: string
  contextType: string | null
  visibility: string | null
  registryAuthority: string
  /** The publication's `lineage_id` and `version` (null only for an event stored without them). */
  lineageId: string | null
  version: number | null
  retracted: boolean
  /** A later version of the same lineage was published in the tenant. */
  superseded: boolean
}

export interface LineageEdgeRecord {
  from: string
  to: string
}

export interface AgentRecord {
  tenantId: string
  agentDid: string
  firstSeen: number
  lastSeen: number
  registryAuthority: string
  eventCount: number
  contextCount: number
}

export interface RegistryRecord {
  tenantId: string
  authority: string
  baseUrl: string | null
  firstSeen: number
  lastSeen: number
  eventCount: number
}

export interface EnrollmentRecord {
  authority: string
  tenantId: string
  baseUrl: string | null
  registryDid: string | null
  /** Sealed secret (never plaintext), or null when the global WEBHOOK_SECRET applies. */
  webhookSecretSealed: string | null
  /** Sealed secret in force before the last rotation (still accepted until it expires), or null. */
  previousWebhookSecretSealed: string | null
  /** Epoch ms after which the previous secret is refused; null with it. */
  previousWebhookSecretExpiresAt: number | null
  /** Sealed read credential (never plaintext) sent on the control plane's reads of the registry, or null. */
  readCredentialSealed: string | null
  enabled: boolean
  createdAt: number
  updatedAt: number
}

/**
 * An enrollment upsert. `undefined` members keep the stored value on update (and take the default on insert);
 * `null` clears an optional member. Setting `webhookSecretSealed` (a replacement, not a rotation) also drops the
 * previous secret of a rotation in progress. A kept read credential is dropped when the upsert moves the
 * enrollment to another tenant (it was granted for the tenant it was given under).
 */
export interface EnrollmentUpsert {
  authority: string
  tenantId: string
  baseUrl?: string | null
  registryDid?: string | null
  webhookSecretSealed?: string | null
  readCredentialSealed?: string | null
  enabled?: boolean
  now: number
}

/** One webhook secret rotation of an enrollment (see ControlPlaneStore.rotateEnrollmentSecret). */
export interface EnrollmentSecretRotation {
  authority: string
  expectedCurrentSealed: string | null
  currentSealed: string
  /** The secret that applied before, sealed for the previous slot; null when none applied (development). */
  previousSealed: string | null
  previousExpiresAt: number | null
  now: number
}

/** Filters of an event listing. Cursor bounds are exclusive, in the listing's order. */
export interface EventQuery {
  tenantId: string
  runId?: string
  eventType?: string
  /** Leaves out one event type (the console hides the CLI's `search_executed` reads by default). */
  excludeEventType?: string
  agentId?: string
  registryAuthority?: string
  /** event_ts >= fromTs */
  fromTs?: number
  /** event_ts < beforeTs */
  beforeTs?: number
  /** Keyset cursor: the last (event_ts, id) of the previous page. */
  after?: { eventTs: number; id: number }
  order: 'asc' | 'desc'
  limit: number
}

/** A run start notification (see ControlPlaneStore.startRun). */
export interface RunStart {
  tenantId: string
  runId: string
  scenarioId: string
  startedAt: number | null
  inputs: string | null
  now: number
}

/** A run completion notification (see ControlPlaneStore.completeRun). */
export interface RunCompletion {
  tenantId: string
  runId: string
  status: RunStatus
  result: string | null
  now: number
}

/** Stream replay filters: events with a store sequence id above `afterId`, of one run when `runId` is given. */
export interface EventReplayQuery {
  tenantId: string
  afterId: number
  /** Highest id to return (the stream's released position); absent for no bound. */
  throughId?: number
  runId?: string
  limit: number
}

/** Events of every tenant with an id strictly between two ids (stream gap recovery). */
export interface EventIdRangeQuery {
  afterId: number
  beforeId: number
  limit: number
}

export interface AgentQuery {
  tenantId: string
  limit: number
  offset: number
}

export interface RunQuery {
  tenantId: string
  status?: RunStatus
  scenarioId?: string
  /** Runs started at or after this instant (epoch ms). */
  startedFrom?: number
  /** Runs started strictly before this instant (epoch ms). */
  startedBefore?: number
  limit: number
  offset: number
}

/** Dashboard aggregates over one window (see dashboard/dashboard.ts for the wire shape). */
export interface DashboardAggregates {
  totalRuns: number
  totalAgents: number
  totalRetracted: number
  recentRuns: RunRecord[]
  byScenario: Array<{ scenarioId: string; runCount: number }>
  byRegistry: Array<{ registryAuthority: string; eventCount: number; publishCount: number; receiptCount: number }>
  didMethods: Array<{ method: string; publishCount: number }>
}

/** One rollup bucket of a tenant's activity, all registries summed. */
export interface ActivityBucket {
  /** Bucket start, epoch ms (a multiple of the rollup bucket length). */
  bucketStart: number
  eventCount: number
  publishCount: number
}

/** Persistence of the core control plane. Every method is safe to call concurrently. */
export interface ControlPlaneStore {
  /**
   * Persists one event and all its projections in ONE transaction: the event row (deduplicated on
   * (tenant, dedupKey)), the run upsert and run-registry set, lineage edges, lifecycle projection, agent and
   * registry counters, dashboard rollups, then `inTransaction` (e.g. webhook outbox rows) — all or nothing.
   *
   * @returns the new event id, or `undefined` when the dedup key was already present (nothing was written and
   *   `inTransaction` was not called).
   */
  recordEvent(
    event: NewEvent,
    inTransaction?: (tx: StoreTransaction, id: number) => Promise<void>,
  ): Promise<number | undefined>

  /** Records a run start: creates the run (status running) or sets scenario, started_at (when given) and inputs. */
  startRun(input: RunStart): Promise<void>

  /** Moves a run to a terminal status (creating it when absent), setting completed_at and result. */
  completeRun(input: RunCompletion): Promise<void>

  getRun(tenantId: string, runId: string): Promise<RunRecord | undefined>
  listRuns(query: RunQuery): Promise<{ runs: RunRecord[]; total: number }>
  /** context_published events of a run, first publication per ctx id, ordered by (event_ts, id). */
  listRunPublications(tenantId: string, runId: string): Promise<RunPublication[]>
  listRunEdges(tenantId: string, runId: string): Promise<LineageEdgeRecord[]>

  listEvents(query: EventQuery): Promise<EventRecord[]>
  /** The store id and event time of each event `listEvents(query)` returns, in the same order. */
  listEventKeys(query: EventQuery): Promise<Array<{ id: number; eventTs: number }>>
  /** The tenant's events among store ids `ids`, in no particular order (other tenants' ids match nothing). */
  getEventsById(tenantId: string, ids: readonly number[]): Promise<EventRecord[]>
  /**
   * Stream replay: the tenant's events (of one run when `runId` is given) with a store sequence id above
   * `afterId`, ascending by id, without their bodies.
   */
  listEventsAfterId(query: EventReplayQuery): Promise<EventSummary[]>
  /**
   * The stream sequencer's reads, across tenants: it orders the events of every tenant on the bus and routes each
   * to its own tenant's streams, so it must see every id. Ascending by id, without bodies.
   */
  listEventsInIdRange(query: EventIdRangeQuery): Promise<EventSummary[]>
  /** The highest committed store sequence id, 0 when there is none (where a stream sequencer starts). */
  latestEventId(): Promise<number>
  /** One event by store sequence id within its tenant, without its body. */
  getEventSummary(tenantId: string, id: number): Promise<EventSummary | undefined>

  listAgents(query: AgentQuery): Promise<{ agents: AgentRecord[]; total: number }>
  getAgent(tenantId: string, agentDid: string): Promise<AgentRecord | undefined>

  listRegistries(tenantId: string): Promise<RegistryRecord[]>

  getEnrollment(authority: string): Promise<EnrollmentRecord | undefined>
  listEnrollments(tenantId: string): Promise<EnrollmentRecord[]>
  /** Every enrollment with a sealed secret or read credential, all tenants (key rotation re-seals them). */
  listSealedEnrollments(): Promise<EnrollmentRecord[]>
  upsertEnrollment(input: EnrollmentUpsert): Promise<EnrollmentRecord>
  /** Replaces a sealed secret only if it still equals `expected` (rotation must not undo a concurrent enroll). */
  replaceSealedSecret(authority: string, expected: string, sealed: string): Promise<boolean>
  /** Same for the previous secret of a rotation in progress. */
  replaceSealedPreviousSecret(authority: string, expected: string, sealed: string): Promise<boolean>
  /** As replaceSealedSecret, for the read credential (its re-seal after a key rotation). */
  replaceSealedReadCredential(authority: string, expected: string, sealed: string): Promise<boolean>
  /**
   * Webhook secret rotation: the new current secret and the previous one (with its expiry) in one write, only if
   * the stored current secret still equals `expectedCurrentSealed` (so two concurrent rotations cannot both keep
   * the same predecessor). Undefined when the enrollment is gone or changed meanwhile.
   */
  rotateEnrollmentSecret(input: EnrollmentSecretRotation): Promise<EnrollmentRecord | undefined>
  /** Drops the previous secret of `authority` now. Undefined when the authority is not enrolled. */
  clearPreviousEnrollmentSecret(authority: string, now: number): Promise<EnrollmentRecord | undefined>

  loadDashboard(query: { tenantId: string; since: number; bucketSince: number }): Promise<DashboardAggregates>

  /** The tenant's rollup buckets starting at or after `bucketSince`, oldest first (empty buckets absent). */
  loadActivity(query: { tenantId: string; bucketSince: number }): Promise<ActivityBucket[]>

  /** Round-trips to the database; throws when it does not answer. */
  ping(): Promise<void>
  /** Releases the database. */
  close(): Promise<void>
}
