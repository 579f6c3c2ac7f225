/** The log-witness operator routes: a registry's witness state and the tenant's alerts. */
import { Type } from 'typebox'
import { NullableString, Timestamp } from './common.js'

const NullableTimestamp = Type.Union([Timestamp, Type.Null()])

export const WitnessAlertShape = Type.Object({
  id: Type.String(),
  authority: Type.String(),
  reason: Type.String(),
  detail: Type.Record(Type.String(), Type.Unknown()),
  at: Timestamp,
  lastSeenAt: Timestamp,
  acknowledgedAt: NullableTimestamp,
  acknowledgedBy: NullableString,
})

/** GET /registries/log-witness/alerts. */
export const WitnessAlertListShape = Type.Object({ data: Type.Array(WitnessAlertShape), total: Type.Integer() })

export const WitnessCheckpointShape = Type.Object({
  logId: Type.String(),
  treeSize: Type.Integer(),
  rootHash: Type.String(),
  timestamp: Timestamp,
  firstWitnessedAt: Timestamp,
  lastWitnessedAt: Timestamp,
  consistencyOk: Type.Union([Type.Boolean(), Type.Null()]),
  witnessedCount: Type.Union([Type.Integer(), Type.Null()]),
  meetsQuorum: Type.Union([Type.Boolean(), Type.Null()]),
})

/** GET /registries/:authority/log-witness. */
export const WitnessStateShape = Type.Object({
  authority: Type.String(),
  logId: NullableString,
  treeSize: Type.Union([Type.Integer(), Type.Null()]),
  rootHash: NullableString,
  lastSuccessAt: NullableTimestamp,
  lastAttemptAt: NullableTimestamp,
  nextPollAt: Timestamp,
  consecutiveFailures: Type.Integer(),
  lastFailure: NullableString,
  alert: Type.Union([WitnessAlertShape, Type.Null()]),
  checkpoints: Type.Array(WitnessCheckpointShape),
  total: Type.Integer(),
})
