/** The control plane's wire shapes the console reads (packages/control-plane/src/routes/*.ts response schemas). */

export type RunStatus = 'running' | 'completed' | 'failed' | 'cancelled'
export const RUN_STATUSES: readonly RunStatus[] = ['running', 'completed', 'failed', 'cancelled']

export type DashboardWindow = '1h' | '6h' | '24h' | '7d' | '30d'
export const DASHBOARD_WINDOWS: readonly DashboardWindow[] = ['1h', '6h', '24h', '7d', '30d']

export interface Session {
  tenantId: string
  isAdmin: boolean
  credential: 'api_key' | 'jwt' | 'development'
}

export interface Run {
  runId: string
  tenantId: string
  scenarioId: string
  status: RunStatus
  startedAt: string
  completedAt: string | null
  inputs: unknown
  result: unknown
  eventsCount: number
  contextsCount: number
  registries: string[]
  updatedAt: string
}

export interface RunPage {
  data: Run[]
  total: number
  limit: number
  offset: number
}

export interface EventRecord {
  id: string
  tenantId: string
  eventId: string | null
  eventType: string
  eventTs: string
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
  rawPayload: unknown
  createdAt: string
}

export interface EventPage {
  data: EventRecord[]
  limit: number
  nextCursor: string | null
}

/** The SSE `data:` of a stream frame (control-plane services/sse-event.ts). */
export interface StreamEvent {
  id: string
  type: string
  ts: string
  runId: string | null
  ctxId: string | null
  agentId: string | null
  contextType: string | null
  registryAuthority: string
  derivedFrom: string[]
  receiptPresent: boolean
}

export interface LineageNode {
  ctxId: string
  agentId: string
  contextType: string | null
  visibility: string | null
  registryAuthority: string
  /** Versions of one lineage in a run form its supersession chain. */
  lineageId: string | null
  version: number | null
  step: number
  retracted: boolean
  /** Retraction dominates supersession; `active` otherwise. */
  status: 'active' | 'superseded' | 'retracted'
}

export interface Lineage {
  runId: string
  nodes: LineageNode[]
  edges: Array<{ from: string; to: string }>
}

export interface DashboardOverview {
  window: DashboardWindow
  totalRuns: number
  totalContexts: number
  totalRetracted: number
  totalContextsLive: number
  totalAgents: number
  recentRuns: Run[]
  byScenario: Array<{ scenario_id: string; run_count: number }>
  byRegistry: Array<{ registry_authority: string; event_count: number }>
  receiptCoverage: Array<{ registry_authority: string; publish_count: number; receipt_count: number }>
  /** `method` as written in DIDs (`did:key`). */
  didMethods: Array<{ method: string; publish_count: number }>
  logWitness: { witnessedLogs: number; activeAlerts: number; unacknowledgedAlerts: number; headsMeetingQuorum: number }
}

export interface DashboardActivity {
  window: DashboardWindow
  bucketMs: number
  buckets: Array<{ start: string; eventCount: number; publishCount: number }>
}

export interface Registry {
  authority: string
  tenantId: string
  baseUrl: string | null
  firstSeen: string
  lastSeen: string
  eventCount: number
}

/** GET /registries/:authority/capabilities: the registry's advertised profiles (its word, unverified). */
export interface RegistryCapabilities {
  authority: string
  registryDid: string | null
  profiles: string[]
}

/** GET /registries/:authority/did-document: the registry's DID document text as served (verified by the reader). */
export interface RegistryDidDocument {
  did: string
  document: string
}

/** GET /registries/:authority/log-evidence: inclusion proof and cosignatures as served (verified by the reader). */
export interface LogEvidence {
  log_inclusion: unknown
  witness_signatures: unknown[] | null
}

export interface Enrollment {
  authority: string
  tenantId: string
  baseUrl: string | null
  registryDid: string | null
  enabled: boolean
  hasWebhookSecret: boolean
  createdAt: string
  updatedAt: string
}

export interface Agent {
  agentDid: string
  tenantId: string
  firstSeen: string
  lastSeen: string
  registryAuthority: string
  contextCount: number
  eventCount: number
}

export interface WebhookSubscription {
  id: string
  tenantId: string
  url: string
  events: string[]
  active: boolean
  createdAt: string
  updatedAt: string
}

export interface WebhookDelivery {
  id: string
  webhookId: string
  eventType: string
  runId: string | null
  status: string
  attempts: number
  nextAttemptAt: string | null
  lastAttemptAt: string | null
  responseStatus: number | null
  error: string | null
  createdAt: string
  deliveredAt: string | null
}

export interface ListOf<T> {
  data: T[]
  total: number
}

/** Log-witness routes (served when the control plane includes the witness; 404 otherwise). */
export interface WitnessAlert {
  id: string
  authority: string
  reason: string
  detail: Record<string, unknown>
  at: string
  lastSeenAt: string
  acknowledgedAt: string | null
  acknowledgedBy: string | null
}

export interface WitnessCheckpoint {
  logId: string
  treeSize: number
  rootHash: string
  timestamp: string
  witnessedCount: number | null
  meetsQuorum: boolean | null
}

export interface WitnessState {
  authority: string
  logId: string | null
  treeSize: number | null
  rootHash: string | null
  lastSuccessAt: string | null
  lastAttemptAt: string | null
  consecutiveFailures: number
  lastFailure: string | null
  alert: WitnessAlert | null
  checkpoints: WitnessCheckpoint[]
}

/** One match summary as a registry sends it (RFC-ACDP-0005 §2.2, acdp-search-response.schema.json). */
export interface SearchMatch {
  ctx_id: string
  lineage_id: string
  type: string
  agent_id: string
  title: string
  created_at: string
  status: string
  summary?: string
  domain?: string
  visibility?: string
}

/** One registry's entry of GET /contexts/search (routes/context-search.ts RegistryPage). */
export interface RegistrySearchPage {
  authority: string
  outcome: 'ok' | 'error'
  /** As the registry sent them: read as {@link SearchMatch}, shown as text only. */
  matches: unknown[]
  next_cursor: string | null
  total_estimate: number | null
  error: { code: string; message: string; status: number | null } | null
}

export interface ContextSearchAnswer {
  registries: RegistrySearchPage[]
}
