/**
 * Witness operator API (product spec "Registries and witness"): a registry's witness state, the tenant's alert
 * worklist, and acknowledgement (admin).
 */
import { Type } from 'typebox'
import { acknowledgeWitnessAlert, getLogWitnessState, listWitnessAlerts } from '../services/witness-state.js'
import { COSIGNER_STANDINGS, MAX_STORED_COSIGNERS } from '../store/witness-store.js'
import type { RoutePlugin } from './route-context.js'

const Timestamp = Type.String({ description: 'RFC 3339 UTC with milliseconds' })
const NullableTimestamp = Type.Union([Timestamp, Type.Null()])
const NullableString = Type.Union([Type.String(), Type.Null()])
const Authority = Type.Object({
  authority: Type.String({ minLength: 1, maxLength: 255, pattern: '^[A-Za-z0-9.:-]+$' }),
})

const AlertShape = Type.Object({
  id: Type.String(),
  authority: Type.String(),
  reason: Type.String(),
  detail: Type.Record(Type.String(), Type.Unknown()),
  at: Timestamp,
  lastSeenAt: Timestamp,
  acknowledgedAt: NullableTimestamp,
  acknowledgedBy: NullableString,
})

const CosignerShape = Type.Object({
  name: Type.Union([Type.String(), Type.Null()], {
    description: "The witness the cosignature names (witness_id, else its key_id's DID); null when it names none",
  }),
  standing: Type.Union(
    COSIGNER_STANDINGS.map((s) => Type.Literal(s)),
    {
      description:
        'counted: trusted and valid, counts toward the quorum; invalid: fails RFC-ACDP-0015 §8; untrusted: not in ' +
        'WITNESS_QUORUM_TRUSTED; unchecked: quorum consumption off, not verified; own: our own, never counts',
    },
  ),
})

const CheckpointShape = Type.Object({
  logId: Type.String(),
  treeSize: Type.Integer(),
  rootHash: Type.String(),
  timestamp: Timestamp,
  firstWitnessedAt: Timestamp,
  lastWitnessedAt: Timestamp,
  consistencyOk: Type.Union([Type.Boolean(), Type.Null()]),
  witnessedCount: Type.Union([Type.Integer(), Type.Null()]),
  meetsQuorum: Type.Union([Type.Boolean(), Type.Null()]),
  cosigners: Type.Union([Type.Array(CosignerShape, { maxItems: MAX_STORED_COSIGNERS }), Type.Null()], {
    description: `Cosigners of the latest observation (at most ${MAX_STORED_COSIGNERS}, counted first); null: observed before they were recorded`,
  }),
  quorumMin: Type.Union([Type.Integer(), Type.Null()], {
    description: 'WITNESS_QUORUM_MIN_WITNESSES at the latest observation; null when quorum consumption was off',
  }),
})

const StateShape = Type.Object({
  authority: Type.String(),
  logId: NullableString,
  treeSize: Type.Union([Type.Integer(), Type.Null()]),
  rootHash: NullableString,
  lastSuccessAt: NullableTimestamp,
  lastAttemptAt: NullableTimestamp,
  nextPollAt: Timestamp,
  consecutiveFailures: Type.Integer(),
  lastFailure: NullableString,
  alert: Type.Union([AlertShape, Type.Null()]),
  checkpoints: Type.Array(CheckpointShape),
  total: Type.Integer(),
})

export const logWitnessRoutes: RoutePlugin = async (app, { deps, witness }) => {
  app.get(
    '/registries/log-witness/alerts',
    {
      schema: {
        summary: 'Log-witness alerts',
        tags: ['witness'],
        querystring: Type.Object(
          { includeAcknowledged: Type.Optional(Type.Boolean()) },
          { additionalProperties: false },
        ),
        response: { 200: Type.Object({ data: Type.Array(AlertShape), total: Type.Integer() }) },
      },
    },
    async (request) => {
      const { includeAcknowledged } = request.query as { includeAcknowledged?: boolean }
      return listWitnessAlerts(witness.store, request.tenantId, includeAcknowledged === true)
    },
  )

  app.get(
    '/registries/:authority/log-witness',
    {
      schema: {
        summary: "A registry's witnessed log head, failures and alert",
        tags: ['witness'],
        params: Authority,
        response: { 200: StateShape },
      },
    },
    async (request) => {
      const { authority } = request.params as { authority: string }
      return getLogWitnessState(witness.store, request.tenantId, authority)
    },
  )

  app.post(
    '/registries/:authority/log-witness/ack',
    {
      config: { auth: 'admin' },
      schema: {
        summary: 'Acknowledge a log-witness alert',
        tags: ['witness'],
        params: Authority,
        response: { 200: AlertShape },
      },
    },
    async (request) => {
      const { authority } = request.params as { authority: string }
      const actor = request.principal?.actorId ?? 'unknown'
      return acknowledgeWitnessAlert({ store: witness.store, clock: deps.clock }, request.tenantId, authority, actor)
    },
  )
}
