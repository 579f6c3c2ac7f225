/**
 * The operator's view of the witness (product spec "Registries and witness", "Witness state for a registry"):
 * per-registry cursor and latest witnessed checkpoints, the alert worklist, acknowledgement, our served
 * cosignatures, and the dashboard tile. Tenant-scoped throughout, except our own public cosignatures.
 */
import { ControlPlaneError } from '../core/errors.js'
import { formatTimestamp } from '../core/http/wire-time.js'
import type { AlertRecord, CosignerRecord, WitnessStore, WitnessSummary } from './witness-store.js'

/** Latest witnessed checkpoints returned with a registry's witness state. */
export const WITNESS_STATE_CHECKPOINTS = 20
/** Most alerts one worklist read returns. */
export const MAX_ALERTS_LISTED = 500
/** Most cosignatures one `GET /log/witness` returns. */
export const MAX_COSIGNATURES_LISTED = 200

export interface AlertView {
  id: string
  authority: string
  reason: string
  detail: Record<string, unknown>
  at: string
  lastSeenAt: string
  acknowledgedAt: string | null
  acknowledgedBy: string | null
}

export interface LogWitnessStateView {
  authority: string
  logId: string | null
  treeSize: number | null
  rootHash: string | null
  lastSuccessAt: string | null
  lastAttemptAt: string | null
  nextPollAt: string
  consecutiveFailures: number
  lastFailure: string | null
  alert: AlertView | null
  checkpoints: Array<{
    logId: string
    treeSize: number
    rootHash: string
    timestamp: string
    firstWitnessedAt: string
    lastWitnessedAt: string
    consistencyOk: boolean | null
    witnessedCount: number | null
    meetsQuorum: boolean | null
    /** Cosigners of the latest observation; null when it predates their recording (migration 0850). */
    cosigners: CosignerRecord[] | null
    /** The quorum minimum in force then; null when quorum consumption was off. */
    quorumMin: number | null
  }>
  total: number
}

/** GET /registries/:authority/log-witness. Throws REGISTRY_NOT_FOUND when the tenant does not witness it. */
export async function getLogWitnessState(
  store: WitnessStore,
  tenantId: string,
  authority: string,
): Promise<LogWitnessStateView> {
  const cursor = await store.getCursor(tenantId, authority)
  if (cursor === undefined) {
    throw new ControlPlaneError('REGISTRY_NOT_FOUND', 'this registry is not witnessed in your tenant')
  }
  const [alert, { checkpoints, total }] = await Promise.all([
    store.getActiveAlert(tenantId, authority),
    store.listCheckpoints(tenantId, authority, WITNESS_STATE_CHECKPOINTS),
  ])
  return {
    authority,
    logId: cursor.head?.logId ?? null,
    treeSize: cursor.head?.treeSize ?? null,
    rootHash: cursor.head?.rootHash ?? null,
    lastSuccessAt: optionalTime(cursor.lastSuccessAt),
    lastAttemptAt: optionalTime(cursor.lastAttemptAt),
    nextPollAt: formatTimestamp(cursor.nextPollAt),
    consecutiveFailures: cursor.consecutiveFailures,
    lastFailure: cursor.lastFailure,
    alert: alert === undefined ? null : toAlertView(alert),
    checkpoints: checkpoints.map((c) => ({
      logId: c.logId,
      treeSize: c.treeSize,
      rootHash: c.rootHash,
      timestamp: formatTimestamp(c.checkpointTimestamp),
      firstWitnessedAt: formatTimestamp(c.firstWitnessedAt),
      lastWitnessedAt: formatTimestamp(c.lastWitnessedAt),
      consistencyOk: c.consistencyOk,
      witnessedCount: c.witnessedCount,
      meetsQuorum: c.meetsQuorum,
      cosigners: c.cosigners,
      quorumMin: c.quorumMin,
    })),
    total,
  }
}

/** GET /registries/log-witness/alerts: active alerts, unacknowledged only unless asked. */
export async function listWitnessAlerts(
  store: WitnessStore,
  tenantId: string,
  includeAcknowledged: boolean,
): Promise<{ data: AlertView[]; total: number }> {
  const alerts = await store.listActiveAlerts(tenantId, includeAcknowledged, MAX_ALERTS_LISTED)
  return { data: alerts.map(toAlertView), total: alerts.length }
}

/**
 * POST /registries/:authority/log-witness/ack: records who and when; the retained head and the alert's active
 * state are untouched (only a verified checkpoint clears it). 404 REGISTRY_NOT_FOUND without an active alert.
 */
export async function acknowledgeWitnessAlert(
  deps: { store: WitnessStore; clock: () => Date },
  tenantId: string,
  authority: string,
  actorId: string,
): Promise<AlertView> {
  const alert = await deps.store.acknowledgeAlert({ tenantId, authority, by: actorId, now: deps.clock().getTime() })
  if (alert === undefined) {
    throw new ControlPlaneError('REGISTRY_NOT_FOUND', 'no active witness alert for this registry')
  }
  return toAlertView(alert)
}

/** GET /log/witness: our cosignatures (verbatim), most recent first. */
export async function listOwnCosignatures(
  store: WitnessStore,
  query: { logId?: string; treeSize?: number },
): Promise<unknown[]> {
  const rows = await store.listCosignatures({ ...query, limit: MAX_COSIGNATURES_LISTED })
  return rows.map((row) => JSON.parse(row.cosignature) as unknown)
}

/** The dashboard tile (current state, not window-scoped). */
export function summarizeWitness(store: WitnessStore, tenantId: string): Promise<WitnessSummary> {
  return store.summarize(tenantId)
}

function toAlertView(alert: AlertRecord): AlertView {
  return {
    id: alert.id,
    authority: alert.authority,
    reason: alert.reason,
    detail: alert.detail,
    at: formatTimestamp(alert.raisedAt),
    lastSeenAt: formatTimestamp(alert.lastSeenAt),
    acknowledgedAt: optionalTime(alert.acknowledgedAt),
    acknowledgedBy: alert.acknowledgedBy,
  }
}

function optionalTime(ms: number | null): string | null {
  return ms === null ? null : formatTimestamp(ms)
}
