/**
 * The control plane's wire shapes the console reads, derived from the TypeBox response schemas its routes serve
 * (`@acdp/control-plane/response-schemas`). Type-only imports: the bundle gets none of the control plane's code
 * (test/architecture.test.ts), and a schema change there fails the console's typecheck here.
 */
import type {
  AgentListShape,
  AgentShape,
  CapabilityListShape,
  ContextSearchShape,
  DashboardActivityShape,
  DashboardOverviewShape,
  DashboardWindowShape,
  EnrollmentListShape,
  EnrollmentShape,
  EventPageShape,
  EventShape,
  LineageShape,
  LogEvidenceShape,
  RegistryCapabilitiesShape,
  RegistryDidDocumentShape,
  RegistryListShape,
  RegistryShape,
  RegistrySearchPageShape,
  RunDetailShape,
  RunPageShape,
  RunShape,
  RunStatusShape,
  SessionShape,
  StreamEventShape,
  WebhookDeliveryListShape,
  WebhookDeliveryShape,
  WebhookSubscriptionListShape,
  WebhookSubscriptionShape,
  WitnessAlertListShape,
  WitnessAlertShape,
  WitnessCheckpointShape,
  WitnessStateShape,
} from '@acdp/control-plane/response-schemas'
import type { Static } from 'typebox'

export type RunStatus = Static<typeof RunStatusShape>
export type DashboardWindow = Static<typeof DashboardWindowShape>

// The select menus need the values at run time, which a type-only import cannot give: the lists are written here,
// and checked to be the schemas' unions (a value outside them fails `satisfies`, a missing one fails the check below).
export const RUN_STATUSES = ['running', 'completed', 'failed', 'cancelled'] as const satisfies readonly RunStatus[]
export const DASHBOARD_WINDOWS = ['1h', '6h', '24h', '7d', '30d'] as const satisfies readonly DashboardWindow[]
type Covers<L extends readonly unknown[], T> = [Exclude<T, L[number]>] extends [never] ? true : false
const listsCoverUnions: [Covers<typeof RUN_STATUSES, RunStatus>, Covers<typeof DASHBOARD_WINDOWS, DashboardWindow>] = [
  true,
  true,
]
void listsCoverUnions

export type Session = Static<typeof SessionShape>

export type Run = Static<typeof RunShape>
/** GET /runs/:runId: the run with its receipt-audit summary. */
export type RunDetail = Static<typeof RunDetailShape>
export type RunPage = Static<typeof RunPageShape>

export type EventRecord = Static<typeof EventShape>
export type EventPage = Static<typeof EventPageShape>

/** The SSE `data:` of a stream frame (the frame's own `id:` carries the store sequence id). */
export type StreamEvent = Static<typeof StreamEventShape>

export type Lineage = Static<typeof LineageShape>
export type LineageNode = Lineage['nodes'][number]

export type DashboardOverview = Static<typeof DashboardOverviewShape>
export type DashboardActivity = Static<typeof DashboardActivityShape>

export type Registry = Static<typeof RegistryShape>
export type RegistryList = Static<typeof RegistryListShape>
/** GET /registries/:authority/capabilities: the registry's advertised profiles (its word, unverified). */
export type RegistryCapabilities = Static<typeof RegistryCapabilitiesShape>
/** GET /registries/:authority/did-document: the registry's DID document text as served (verified by the reader). */
export type RegistryDidDocument = Static<typeof RegistryDidDocumentShape>
/** GET /registries/:authority/log-evidence: inclusion proof and cosignatures as served (verified by the reader). */
export type LogEvidence = Static<typeof LogEvidenceShape>

export type Enrollment = Static<typeof EnrollmentShape>
export type EnrollmentList = Static<typeof EnrollmentListShape>

export type Agent = Static<typeof AgentShape>
export type AgentList = Static<typeof AgentListShape>
/** GET /capabilities/by-agent/*did. */
export type CapabilityList = Static<typeof CapabilityListShape>

export type WebhookSubscription = Static<typeof WebhookSubscriptionShape>
/** GET /webhooks: a bare array. */
export type WebhookSubscriptionList = Static<typeof WebhookSubscriptionListShape>
export type WebhookDelivery = Static<typeof WebhookDeliveryShape>
export type WebhookDeliveryList = Static<typeof WebhookDeliveryListShape>

/** Log-witness routes (served when the control plane includes the witness; 404 otherwise). */
export type WitnessAlert = Static<typeof WitnessAlertShape>
export type WitnessAlertList = Static<typeof WitnessAlertListShape>
export type WitnessCheckpoint = Static<typeof WitnessCheckpointShape>
export type WitnessState = Static<typeof WitnessStateShape>

/**
 * One match summary as a registry sends it (RFC-ACDP-0005 §2.2, acdp-search-response.schema.json). The control
 * plane relays matches unchecked (`unknown[]`), so this is the registry protocol's shape, not one of its own.
 */
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

/** One registry's entry of GET /contexts/search; its `matches` are read as {@link SearchMatch}, shown as text only. */
export type RegistrySearchPage = Static<typeof RegistrySearchPageShape>
export type ContextSearchAnswer = Static<typeof ContextSearchShape>
