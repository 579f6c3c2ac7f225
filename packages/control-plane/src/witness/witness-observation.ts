/**
 * One observation of one registry's log (RFC-ACDP-0015 §7 over RFC-ACDP-0012 §9): fetch the checkpoint, verify
 * it (closed parse, registry binding, signature, clock skew), then compare it with the retained head — consistency
 * proof when the tree grew — and decide. The verdict is data; the poller persists it.
 *
 * Alert reasons (the strings of `log_witness_alerts.reason`, docs/control-plane/witness.md):
 *
 * | reason                            | what the registry did                                               |
 * | --------------------------------- | ------------------------------------------------------------------- |
 * | `checkpoint_invalid`              | served a body that is not a closed §6 checkpoint (or a bad form)    |
 * | `registry_binding_mismatch`       | log_id / key_id name another DID than `did:web:<authority>`          |
 * | `checkpoint_timestamp_in_future`  | signed a timestamp beyond the clock-skew allowance                  |
 * | `checkpoint_signature_invalid`    | the signature does not verify under its DID document key            |
 * | `root_mismatch`                   | split view: two signed checkpoints of one size with different roots |
 * | `consistency_failed`              | history rewrite: the proof from our head fails, or was refused      |
 * | `tree_size_regression`            | a smaller tree than our retained head, same log                     |
 * | `log_reset`                       | an empty tree under the log id we hold a non-empty head for         |
 * | `log_id_changed`                  | a new log instantiation (§7.4 reset): history continuity broken     |
 * | `unreachable`                     | (poller) no usable answer for LOG_WITNESS_UNREACHABLE_THRESHOLD polls |
 */
import {
  type CheckpointTuple,
  type CosignedTuple,
  countWitnesses,
  decideCosignature,
  isProtocolError,
  type LogCheckpoint,
  type ProtocolError,
  type PublicKeyMaterial,
  parseSha256,
  verifyCheckpoint,
  type VerifiedCheckpoint,
  type WitnessCount,
} from '@acdp/protocol'
import type { CosignerRecord, RetainedHead } from './witness-store.js'
import { describeCosigners } from './witness-cosigners.js'
import { WitnessFetchFailure, type WitnessRegistryClient } from './witness-registry-client.js'
import type { RegistryKeyResolver } from './witness-registry-keys.js'

export const WITNESS_ALERT_REASONS = [
  'checkpoint_invalid',
  'registry_binding_mismatch',
  'checkpoint_timestamp_in_future',
  'checkpoint_signature_invalid',
  'root_mismatch',
  'consistency_failed',
  'tree_size_regression',
  'log_reset',
  'log_id_changed',
  'unreachable',
] as const
export type WitnessAlertReason = (typeof WITNESS_ALERT_REASONS)[number]

/** The verdict of one observation. */
export type Observation =
  | {
      kind: 'witnessed'
      checkpoint: LogCheckpoint
      /** null on the first observation of a log (anchors, proves nothing yet). */
      consistencyOk: boolean | null
      quorum: QuorumVerdict | null
      /** Who cosigned it, each with its standing (witness-cosigners.ts); bounded. */
      cosigners: CosignerRecord[]
    }
  | { kind: 'alert'; reason: WitnessAlertReason; detail: Record<string, unknown> }
  | { kind: 'failure'; failure: string }
  | { kind: 'not_a_log' }

/** The quorum verdict of one observation (RFC-ACDP-0015 §8.1: the minimum is the consumer's policy). */
export interface QuorumVerdict {
  witnessedCount: number
  meetsQuorum: boolean
  invalidCosignatures: number
  /** WITNESS_QUORUM_MIN_WITNESSES in force when this verdict was reached. */
  minWitnesses: number
}

/** The registry being observed. */
export interface ObservedRegistry {
  authority: string
  baseUrl: string
  /** Enrollment's registryDid, when set: must agree with the log's DID. */
  registryDid: string | null
  head: RetainedHead | undefined
}

/** Quorum policy (WITNESS_QUORUM_*), or undefined when quorum consumption is off. */
export interface QuorumPolicy {
  isTrustedWitness: (witnessId: string) => boolean
  minWitnesses: number
  maxFutureSkewMs: number
  resolveWitnessKey: (keyId: string) => Promise<PublicKeyMaterial>
}

export interface ObservationDeps {
  client: WitnessRegistryClient
  /** Resolves a registry key (did:web document, SSRF-safe; witness-registry-keys.ts). */
  resolveRegistryKey: RegistryKeyResolver
  now: () => Date
  maxFutureSkewMs: number
  quorum: QuorumPolicy | undefined
  /** Our WITNESS_ID when cosigning is on: a cosignature naming it is ours and never counts. */
  ownWitnessId: string | undefined
}

const BINDING_REASONS = new Set([
  'registry_did_not_did_web',
  'registry_did_mismatch',
  'capabilities_registry_did_mismatch',
  'key_id_not_under_registry_did',
])

/** Observes `registry` once. Never throws for anything the registry sends; bugs propagate. */
export async function observeRegistryLog(
  deps: ObservationDeps,
  registry: ObservedRegistry,
  signal: AbortSignal,
): Promise<Observation> {
  try {
    const capabilities = await deps.client.capabilities(registry.authority, registry.baseUrl, signal)
    if (!capabilities.advertisesLog) return { kind: 'not_a_log' }
    const fetched = await deps.client.checkpoint(registry.baseUrl, signal)
    if (fetched.malformed !== undefined) {
      return alert('checkpoint_invalid', { error: fetched.malformed }, registry)
    }
    const verified = await verifyFetchedCheckpoint(
      deps,
      registry,
      fetched.checkpoint,
      registry.registryDid ?? capabilities.registryDid,
    )
    if ('kind' in verified) return verified
    const decision = await compareWithHead(deps, registry, verified, signal)
    if (decision !== undefined) return decision
    // Bound the work an attacker-sized array can cause; distinct trusted witnesses are few.
    const considered = fetched.witnessSignatures.slice(0, MAX_COSIGNATURES_CONSIDERED)
    const counted = deps.quorum ? await countQuorum(deps, deps.quorum, verified.checkpoint, considered) : undefined
    return {
      kind: 'witnessed',
      checkpoint: verified.checkpoint,
      consistencyOk: registry.head === undefined ? null : true,
      quorum: counted?.verdict ?? null,
      cosigners: describeCosigners(considered, counted, deps.ownWitnessId),
    }
  } catch (error) {
    if (error instanceof WitnessFetchFailure) return { kind: 'failure', failure: error.category }
    if (isProtocolError(error) && error.code === 'key_resolution_unreachable') {
      return { kind: 'failure', failure: 'did_unreachable' }
    }
    throw error
  }
}

/** RFC-ACDP-0012 §9.3, with one forced DID refresh before calling a signature bad (key rotation, §5.11). */
async function verifyFetchedCheckpoint(
  deps: ObservationDeps,
  registry: ObservedRegistry,
  checkpoint: unknown,
  capabilitiesRegistryDid: string | undefined,
): Promise<VerifiedCheckpoint | Extract<Observation, { kind: 'alert' }>> {
  const verify = (forceRefresh: boolean) =>
    verifyCheckpoint(checkpoint, {
      authority: registry.authority,
      capabilitiesRegistryDid,
      resolveKey: (keyId) => deps.resolveRegistryKey(keyId, { forceRefresh, registry }),
      now: deps.now(),
      maxFutureSkewMs: deps.maxFutureSkewMs,
    })
  try {
    try {
      return await verify(false)
    } catch (error) {
      if (!isSignatureFailure(error)) throw error
      return await verify(true)
    }
  } catch (error) {
    if (!isProtocolError(error)) throw error
    if (error.code === 'key_resolution_unreachable') throw error
    const reason = String(error.details?.['reason'] ?? error.code)
    const evidence = { error: reason, ...checkpointEvidence(checkpoint, error) }
    if (error.code === 'invalid_structure') return alert('checkpoint_invalid', evidence, registry)
    if (BINDING_REASONS.has(reason)) return alert('registry_binding_mismatch', evidence, registry)
    if (reason === 'timestamp_in_future') return alert('checkpoint_timestamp_in_future', evidence, registry)
    if (reason === 'empty_tree_root_mismatch') return alert('checkpoint_invalid', evidence, registry)
    // verification_failed on the signature, or a key the registry's DID document does not publish.
    return alert('checkpoint_signature_invalid', evidence, registry)
  }
}

/** The RFC-ACDP-0015 §7 state machine against the retained head; undefined means "witnessed". */
async function compareWithHead(
  deps: ObservationDeps,
  registry: ObservedRegistry,
  verified: VerifiedCheckpoint,
  signal: AbortSignal,
): Promise<Observation | undefined> {
  const head = registry.head
  if (head === undefined) return undefined
  const presented = verified.checkpoint
  const retained: CheckpointTuple = { log_id: head.logId, tree_size: head.treeSize, root_hash: head.rootHash }
  const pair = { previous: retained, checkpoint: presented }
  if (presented.log_id !== head.logId) return alert('log_id_changed', pair, registry)
  if (presented.tree_size < head.treeSize) {
    return alert(presented.tree_size === 0 ? 'log_reset' : 'tree_size_regression', pair, registry)
  }
  if (presented.tree_size === head.treeSize) {
    return presented.root_hash === head.rootHash ? undefined : alert('root_mismatch', pair, registry)
  }
  if (head.treeSize === 0) return undefined // an empty tree is a prefix of every tree (§9.2 step 2)
  const answer = await deps.client.consistency(registry.baseUrl, head.treeSize, presented.tree_size, signal)
  if (answer.kind === 'refused') {
    return alert(
      'consistency_failed',
      { ...pair, error: answer.malformed ?? `proof_refused_http_${answer.status}` },
      registry,
    )
  }
  const proof = parseConsistencyAnswer(answer.body, head, presented)
  if ('error' in proof) return alert('consistency_failed', { ...pair, error: proof.error }, registry)
  // RFC-ACDP-0015 §7 step 2, the headline check: the proof must fold to our retained root and the presented root.
  const decision = decideCosignature({ presented, retainedHead: retained, consistencyPath: proof.path })
  if (decision.action === 'refuse') {
    return alert('consistency_failed', { ...pair, evidence: decision.evidence, error: decision.reason }, registry)
  }
  // The proof's own checkpoint is a second signed statement about the same size: a different root is a split view.
  if (proof.checkpoint !== undefined) {
    const conflicting = await verifyFetchedCheckpoint(deps, registry, proof.checkpoint, undefined)
    if ('kind' in conflicting) return conflicting
    const other = conflicting.checkpoint
    if (other.tree_size === presented.tree_size && other.root_hash !== presented.root_hash) {
      return alert('root_mismatch', { ...pair, conflicting: other }, registry)
    }
  }
  return undefined
}

/** Reads a consistency-mode answer defensively (attacker-controlled). */
function parseConsistencyAnswer(
  body: unknown,
  head: RetainedHead,
  presented: LogCheckpoint,
): { path: Uint8Array[]; checkpoint: unknown } | { error: string } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return { error: 'proof_not_an_object' }
  const proof = body as Record<string, unknown>
  if (proof['log_id'] !== head.logId) return { error: 'proof_log_id_mismatch' }
  if (proof['first_tree_size'] !== head.treeSize || proof['second_tree_size'] !== presented.tree_size) {
    return { error: 'proof_tree_size_mismatch' }
  }
  const rawPath = proof['consistency_path']
  if (!Array.isArray(rawPath) || rawPath.length > 128) return { error: 'proof_path_malformed' }
  const path: Uint8Array[] = []
  for (const element of rawPath) {
    try {
      if (typeof element !== 'string') return { error: 'proof_path_malformed' }
      path.push(parseSha256(element))
    } catch {
      return { error: 'proof_path_malformed' }
    }
  }
  return { path, checkpoint: proof['log_checkpoint'] }
}

/** Registry-aggregated cosignatures looked at per observation (the rest are ignored, never verified). */
export const MAX_COSIGNATURES_CONSIDERED = 64

/** RFC-ACDP-0015 §8 over the registry-aggregated cosignatures: DISTINCT trusted witnesses over the exact tuple. */
async function countQuorum(
  deps: ObservationDeps,
  policy: QuorumPolicy,
  checkpoint: LogCheckpoint,
  considered: unknown[],
): Promise<{ verdict: QuorumVerdict; failures: WitnessCount['failures'] }> {
  const tuple: CosignedTuple = {
    log_id: checkpoint.log_id,
    tree_size: checkpoint.tree_size,
    root_hash: checkpoint.root_hash,
  }
  const counted = await countWitnesses(considered, {
    checkpoint: tuple,
    resolveKey: policy.resolveWitnessKey,
    isTrustedWitness: policy.isTrustedWitness,
    now: deps.now(),
    maxFutureSkewMs: policy.maxFutureSkewMs,
  })
  const untrusted = counted.failures.filter((f) => f.error.details?.['reason'] === 'witness_not_trusted').length
  return {
    verdict: {
      witnessedCount: counted.count,
      meetsQuorum: counted.count >= policy.minWitnesses,
      invalidCosignatures: counted.failures.length - untrusted,
      minWitnesses: policy.minWitnesses,
    },
    failures: counted.failures,
  }
}

function isSignatureFailure(error: unknown): boolean {
  return (
    isProtocolError(error) &&
    ((error.code === 'verification_failed' && error.details?.['reason'] === 'signature_invalid') ||
      error.code === 'key_resolution_failed')
  )
}

/** Evidence of a checkpoint that failed verification: the object itself when it parsed, else the schema errors. */
function checkpointEvidence(checkpoint: unknown, error: ProtocolError): Record<string, unknown> {
  if (error.code === 'invalid_structure') {
    const errors = Array.isArray(error.details?.['errors']) ? (error.details['errors'] as unknown[]).slice(0, 20) : []
    return { schema_errors: errors }
  }
  return { checkpoint }
}

function alert(
  reason: WitnessAlertReason,
  detail: Record<string, unknown>,
  registry: ObservedRegistry,
): Extract<Observation, { kind: 'alert' }> {
  const logId = registry.head?.logId
  return {
    kind: 'alert',
    reason,
    detail: { code: 'INVALID_LOG_PROOF', reason, ...(logId === undefined ? {} : { log_id: logId }), ...detail },
  }
}
