/**
 * The control plane's wire shapes the console reads, derived from the TypeBox response schemas its routes serve
 * (`@acdp/control-plane/response-schemas`). Type-only imports: the bundle gets none of the control plane's code
 * (test/architecture.test.ts), and a schema change there fails the console's typecheck here.
 */
import type {
  AgentListShape,
  AgentShape,
  CapabilityListShape,
  DashboardWindow,
  EnrollmentListShape,
  EnrollmentShape,
  RegistryListShape,
  RegistryShape,
  RunShape,
  RunStatus,
  SessionShape,
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

// Declared with the schemas because the control plane's own code names them too (one declaration per name).
export type {
  ContextSearchAnswer,
  DashboardActivity,
  DashboardOverview,
  DashboardWindow,
  EventPage,
  EventView,
  LogEvidence,
  RegistryCapabilities,
  RegistryDidDocument,
  RegistrySearchPage,
  RunDetail,
  RunLineage,
  RunLineageNode,
  RunPage,
  RunStatus,
  StreamEvent,
} from '@acdp/control-plane/response-schemas'

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

export type Registry = Static<typeof RegistryShape>
export type RegistryList = Static<typeof RegistryListShape>

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
 * plane relays matches unchecked (`unknown[]`), so this is the registry protocol's shape, not one of its own: a
 * {@link RegistrySearchPage}'s `matches` are read as this, shown as text only.
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
