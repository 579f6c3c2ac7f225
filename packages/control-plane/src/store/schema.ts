/**
 * Table shapes of the control plane store (Kysely typing) and the StoredEvent handed to the live bus.
 *
 * Portable column conventions (both SQLite and PostgreSQL): timestamps are integer epoch milliseconds
 * (`*_at`, `event_ts`, `bucket_start`), booleans are integers 0/1, JSON is text. Every tenant-owned table
 * carries `tenant_id` as the first column of its primary key and of every index.
 */
import type { Generated } from 'kysely'

/** The append-only event log: one row per ingested (deduplicated) registry event. */
export interface ContextEventsTable {
  /** Store sequence, ascending in insertion order; the tie-breaker of every (event_ts, id) ordering. */
  id: Generated<number>
  tenant_id: string
  /** Idempotency key, unique per tenant: `evt:<body event_id>` or `fp:<sha256 of the raw body>` (no header). */
  dedup_key: string
  /** The registry-minted event id (signed body `event_id`, else X-ACDP-Event-Id), when one was given. */
  event_id: string | null
  event_type: string
  /** Event time: the payload's created_at, else at, else the arrival time. */
  event_ts: number
  /** Arrival time on this service's clock. */
  received_at: number
  run_id: string | null
  ctx_id: string | null
  lineage_id: string | null
  /** NULL for agent-less events (context_retrieved, search_executed…), never ''. */
  agent_id: string | null
  context_type: string | null
  visibility: string | null
  version: number | null
  /** JSON array of ctx ids. */
  derived_from: string
  registry_authority: string
  scenario_id: string | null
  key_fingerprint: string | null
  receipt_present: number
  /** The body exactly as received (the signed bytes, UTF-8). */
  raw_payload: string
}

/** Runs: one row per (tenant, run id), created by the first event or by POST /runs/started. */
export interface RunsTable {
  tenant_id: string
  run_id: string
  /** 'unknown' until an event or the start notification names a scenario. */
  scenario_id: string
  status: string
  started_at: number
  completed_at: number | null
  /** JSON text or NULL. */
  inputs: string | null
  /** JSON text or NULL. */
  result: string | null
  /** Events of any type correlated into the run. */
  events_count: number
  /** context_published events correlated into the run. */
  contexts_count: number
  created_at: number
  updated_at: number
}

/** The set of registry authorities that delivered events of a run (a set, so concurrent inserts never lose one). */
export interface RunRegistriesTable {
  tenant_id: string
  run_id: string
  registry_authority: string
}

/** Lineage edges from `derived_from`: from = parent ctx id, to = the derived (published) ctx id. */
export interface LineageEdgesTable {
  tenant_id: string
  from_ctx_id: string
  to_ctx_id: string
  run_id: string | null
  created_at: number
}

/** Lifecycle projection of context_retracted / context_republished events (latest event time wins). */
export interface ContextLifecycleTable {
  tenant_id: string
  ctx_id: string
  lineage_id: string | null
  retracted: number
  retracted_at: number | null
  republished_at: number | null
  actor: string | null
  reason: string | null
  /** Event time of the event that set this state; older events never overwrite it. */
  last_event_at: number
  updated_at: number
}

/** Agents observed in events. */
export interface AgentsTable {
  tenant_id: string
  agent_did: string
  first_seen: number
  last_seen: number
  registry_authority: string
  event_count: number
  context_count: number
}

/** Registries observed in events (the enrollment list is separate). */
export interface RegistriesTable {
  tenant_id: string
  authority: string
  /** From the signed payload's registry_base_url; informational (federation uses the enrollment's base URL). */
  base_url: string | null
  first_seen: number
  last_seen: number
  event_count: number
}

/** Registry enrollments. One tenant per authority: the enrollment decides the tenant of its events. */
export interface RegistryEnrollmentsTable {
  authority: string
  tenant_id: string
  base_url: string | null
  registry_did: string | null
  /** AES-256-GCM sealed per-registry webhook secret (core/secret-box.ts), or NULL for WEBHOOK_SECRET. */
  webhook_secret_sealed: string | null
  /** The secret before the last rotation, sealed the same way; NULL when no rotation is in progress (0600). */
  webhook_secret_previous_sealed: string | null
  /** Epoch ms after which the previous secret is no longer accepted; NULL with it. */
  webhook_secret_previous_expires_at: number | null
  /** Sealed bearer credential sent on reads of this registry, or NULL to read anonymously (0860). */
  read_credential_sealed: string | null
  enabled: number
  created_at: number
  updated_at: number
}

/** Dashboard rollup: per tenant, per 5-minute bucket, per registry. Updated in the ingest transaction. */
export interface RegistryActivityTable {
  tenant_id: string
  bucket_start: number
  registry_authority: string
  event_count: number
  publish_count: number
  receipt_count: number
}

/** Dashboard rollup: context_published counts per producer DID method. */
export interface DidMethodActivityTable {
  tenant_id: string
  bucket_start: number
  method: string
  publish_count: number
}

/**
 * Dashboard rollup: runs per tenant, per hour of `started_at`, per scenario. Written only by the triggers of
 * migration 0830 on `runs` (never by application code), so it equals a GROUP BY over `runs` at every commit.
 */
export interface RunActivityTable {
  tenant_id: string
  bucket_start: number
  scenario_id: string
  run_count: number
}

/** Every table of the core control plane schema. Feature tables (webhooks, witness, …) are typed in their own files (`withTables`). */
export interface ControlPlaneTables {
  context_events: ContextEventsTable
  runs: RunsTable
  run_registries: RunRegistriesTable
  lineage_edges: LineageEdgesTable
  context_lifecycle: ContextLifecycleTable
  agents: AgentsTable
  registries: RegistriesTable
  registry_enrollments: RegistryEnrollmentsTable
  registry_activity: RegistryActivityTable
  did_method_activity: DidMethodActivityTable
  run_activity: RunActivityTable
}

/**
 * The attributes every form of an ingested event carries, camelCase: the persisted record (store.ts), the
 * committed event below, the GET /events view and the stream event. Defined once so the forms cannot drift.
 */
export interface EventAttributes {
  /** Registry-minted event id, when the delivery carried one. */
  eventId: string | null
  runId: string | null
  ctxId: string | null
  lineageId: string | null
  agentId: string | null
  contextType: string | null
  visibility: string | null
  version: number | null
  derivedFrom: string[]
  registryAuthority: string
  scenarioId: string | null
  keyFingerprint: string | null
  receiptPresent: boolean
}

/**
 * One ingested event as committed, handed to the live bus (SSE) and to the webhook outbox hook. Timestamps are
 * RFC 3339 UTC with milliseconds; `payload` is the parsed body exactly as the registry signed it.
 */
export interface StoredEvent extends EventAttributes {
  /** Store sequence id (ascending in commit-insertion order; usable as an SSE event id). */
  id: number
  tenantId: string
  type: string
  /** Event time (payload created_at / at, else arrival), RFC 3339 ms UTC. */
  ts: string
  /** Arrival time, RFC 3339 ms UTC. */
  receivedAt: string
  payload: Record<string, unknown>
}
