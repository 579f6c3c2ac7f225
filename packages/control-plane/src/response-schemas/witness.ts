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

/** How one cosignature of a witnessed checkpoint stands (witness-cosigners.ts decides it). */
export const COSIGNER_STANDINGS = ['counted', 'invalid', 'untrusted', 'unchecked', 'own'] as const
export type CosignerStanding = (typeof COSIGNER_STANDINGS)[number]

/** Cosigners kept per witnessed checkpoint: the evidence row stays small whatever a registry serves. */
export const MAX_STORED_COSIGNERS = 32

export const WitnessCosignerShape = Type.Object({
  name: Type.Union([Type.String(), Type.Null()], {
    description: "The witness the cosignature names (witness_id, else its key_id's DID); null when it names none",
  }),
  // Spelled out (not mapped from COSIGNER_STANDINGS, the same list) so that Static<> keeps the literal union;
  // witness-cosigners.test.ts serves every standing through this schema.
  standing: Type.Union(
    [
      Type.Literal('counted'),
      Type.Literal('invalid'),
      Type.Literal('untrusted'),
      Type.Literal('unchecked'),
      Type.Literal('own'),
    ],
    {
      description:
        'counted: trusted and valid, counts toward the quorum; invalid: fails RFC-ACDP-0015 §8; untrusted: not in ' +
        'WITNESS_QUORUM_TRUSTED; unchecked: quorum consumption off, not verified; own: our own, never counts',
    },
  ),
})

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
  cosigners: Type.Union([Type.Array(WitnessCosignerShape, { maxItems: MAX_STORED_COSIGNERS }), Type.Null()], {
    description: `Cosigners of the latest observation (at most ${MAX_STORED_COSIGNERS}, counted first); null: observed before they were recorded`,
  }),
  quorumMin: Type.Union([Type.Integer(), Type.Null()], {
    description: 'WITNESS_QUORUM_MIN_WITNESSES at the latest observation; null when quorum consumption was off',
  }),
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
