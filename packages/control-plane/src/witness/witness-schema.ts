/**
 * Table shapes of the transparency-log witness (migration 0200). Same portable conventions as schema.ts: epoch
 * milliseconds, integer booleans, JSON as text.
 */
import type { Generated } from 'kysely'
import type { ContextEventsTable, RegistryEnrollmentsTable } from '../store/schema.js'

/** One witnessed registry: retained head, health, schedule and poll lease. */
export interface LogWitnessCursorsTable {
  authority: string
  tenant_id: string
  /** Retained head (RFC-ACDP-0015 §7): moved only by a checkpoint that fully verified. NULL before the first. */
  log_id: string | null
  tree_size: number | null
  root_hash: string | null
  /** The retained signed checkpoint, verbatim JSON. */
  head_checkpoint: string | null
  last_success_at: number | null
  last_attempt_at: number | null
  /** Environmental failures (unreachable, 5xx, DID host down) in a row; a verified or alerting poll resets it. */
  consecutive_failures: number
  /** Category of the last environmental failure. */
  last_failure: string | null
  next_poll_at: number
  /** Poll lease: the instance polling this registry now, until `lease_until`. */
  lease_owner: string | null
  lease_until: number
  created_at: number
  updated_at: number
}

/** A verified head kept as evidence, with the quorum verdict of its latest observation. */
export interface LogWitnessCheckpointsTable {
  id: Generated<number>
  tenant_id: string
  authority: string
  log_id: string
  tree_size: number
  root_hash: string
  checkpoint_timestamp: number
  raw_checkpoint: string
  /** 1 consistent with the previous retained head, NULL on a log's first observation. */
  consistency_ok: number | null
  /** NULL when quorum consumption is off. */
  witnessed_count: number | null
  meets_quorum: number | null
  /**
   * (0850) JSON `[{name, standing}]`: the cosigners of the latest observation, at most 32. NULL on rows last
   * observed before 0850 (unknown, not "none").
   */
  cosigners: string | null
  /** (0850) WITNESS_QUORUM_MIN_WITNESSES of the latest observation; NULL when quorum consumption was off. */
  quorum_min: number | null
  first_witnessed_at: number
  last_witnessed_at: number
}

/** The alert worklist. At most one row per authority has `cleared_at` NULL (the active alert). */
export interface LogWitnessAlertsTable {
  id: string
  tenant_id: string
  authority: string
  reason: string
  /** JSON evidence: checkpoints, proof, failure details. */
  detail: string
  raised_at: number
  last_seen_at: number
  acknowledged_at: number | null
  acknowledged_by: string | null
  cleared_at: number | null
  /** context_events id of the fan-out event announcing it. */
  event_seq: number | null
}

/** Our own cosignatures, verbatim, one per observation. */
export interface LogWitnessCosignaturesTable {
  id: Generated<number>
  tenant_id: string
  authority: string
  log_id: string
  tree_size: number
  root_hash: string
  witnessed_at: number
  cosignature: string
}

/** The tables the witness store reads and writes. */
export interface WitnessTables {
  log_witness_cursors: LogWitnessCursorsTable
  log_witness_checkpoints: LogWitnessCheckpointsTable
  log_witness_alerts: LogWitnessAlertsTable
  log_witness_cosignatures: LogWitnessCosignaturesTable
  registry_enrollments: RegistryEnrollmentsTable
  context_events: ContextEventsTable
}
