/**
 * The verification pipeline of `acdp get --verify` (run by `acdp trace` for every walked node and by the MCP
 * server's get_context / verify_context too): the body
 * stages, then the evidence of the registry that served the context — registry_receipt, log_inclusion (the proof
 * fetched from GET /log/proof when not served), witness_signatures (beside the newest checkpoint) and
 * key_revocation (the producer's revocations found on that registry). Every lookup goes to `registryUrl`, the
 * registry of the context's own authority, never to another one.
 */
import { authorityOfCtxId } from '../receipt/registry-binding.js'
import type { LogCheckpoint } from '../wire/log.js'
import type { EvidenceRequirement } from './evidence-requirement.js'
import { findProducerRevocations } from './producer-revocations.js'
import { createProfileLookup, type ProfileLookup } from './profile-lookup.js'
import type { RegistryJsonReader } from './registry-json.js'
import type { DataRefOptions } from './verify-data-refs.js'
import { type KeyResolver, type VerificationReport, verifyContext } from './verify-context.js'

export interface EvidenceVerification {
  report: VerificationReport
  /** What was fetched or could not be looked up, one line each. */
  notes: string[]
}

export interface VerifyWithEvidenceOptions {
  resolver: KeyResolver
  /** Witness DIDs whose cosignatures count (empty: any that verifies). */
  trustedWitnesses: readonly string[]
  /** Evidence whose absence fails the verification (`--require`). */
  require?: EvidenceRequirement
  /** How DataRef locations are fetched (`--fetch-data`); absent: they are reported not checked. */
  dataRefs?: DataRefOptions
  /**
   * The registries' advertised profiles, so evidence a registry does not promise is not reported missing
   * (a command verifying many contexts shares one lookup; default: one fetch for this call).
   */
  profiles?: ProfileLookup
}

/**
 * Verifies the context and the registry's evidence. The inclusion proof is fetched when the answer carries a
 * receipt but no proof; the producer's revocations are looked up by search. Both lookups are best effort: a
 * registry without them (404/501) leaves those stages not available / not checked, which the notes say.
 *
 * @param read carries every lookup (trace passes one over its walk transport and deadline).
 * @throws whatever `read` throws when the registry is unreachable or answers with something that is not JSON.
 */
export async function verifyWithEvidence(
  read: RegistryJsonReader,
  registryUrl: string,
  fetched: Record<string, unknown>,
  options: VerifyWithEvidenceOptions,
): Promise<EvidenceVerification> {
  const envelope = { ...fetched }
  const body = (envelope['body'] ?? {}) as Record<string, unknown>
  const authority = typeof body['ctx_id'] === 'string' ? authorityOfCtxId(body['ctx_id']) : undefined
  const notes: string[] = []
  if (envelope['registry_receipt'] !== undefined && envelope['log_inclusion'] === undefined && authority) {
    notes.push(...(await attachLogEvidence(read, registryUrl, String(body['ctx_id']), envelope)))
  }
  let revocations
  if (typeof body['agent_id'] === 'string') {
    const lookup = await findProducerRevocations(read, registryUrl, body['agent_id'], authority, options.resolver)
    revocations = lookup.revocations
    notes.push(lookup.note)
  }
  const registryProfiles = await (options.profiles ?? createProfileLookup(read))(registryUrl)
  const report = await verifyContext(envelope, {
    resolver: options.resolver,
    registryProfiles,
    evidence: {
      now: new Date(),
      trustedWitnesses: options.trustedWitnesses,
      ...(revocations === undefined ? {} : { revocations }),
    },
    ...(options.require === undefined ? {} : { require: options.require }),
    ...(options.dataRefs === undefined ? {} : { dataRefs: options.dataRefs }),
  })
  // Warnings fail no stage (e.g. an unknown but well-formed status, RFC-ACDP-0004 §4.1); they are still said.
  notes.push(...report.warnings.map((warning) => `warning: ${warning}`))
  return { report, notes }
}

/**
 * Adds `log_inclusion` (and, when a witness cosigned it, `witness_signatures`) to `envelope`. A registry that
 * aggregates cosignatures serves them beside its newest checkpoint only (RFC-ACDP-0015 §6.1), so the proof is
 * asked at that witnessed size when the context is already in it; otherwise at the current size, without
 * cosignatures. The cosignatures are attached only over the exact checkpoint the proof reaches (same log, size,
 * root); verifyContext then checks them against it. Returns the notes to print.
 */
async function attachLogEvidence(
  read: RegistryJsonReader,
  registryUrl: string,
  ctxId: string,
  envelope: Record<string, unknown>,
): Promise<string[]> {
  const notes: string[] = []
  const witnessed =
    envelope['witness_signatures'] === undefined ? await fetchWitnessedCheckpoint(read, registryUrl) : undefined
  const proofPath = `/log/proof?ctx_id=${encodeURIComponent(ctxId)}`
  let proof =
    witnessed === undefined
      ? undefined
      : await read(registryUrl, `${proofPath}&tree_size=${witnessed.checkpoint.tree_size}`)
  if (proof !== undefined && proof.status !== 200) {
    notes.push(
      `the newest witnessed checkpoint (tree size ${witnessed?.checkpoint.tree_size}) does not include this context yet`,
    )
    proof = undefined
  }
  proof ??= await read(registryUrl, proofPath)
  if (proof.status !== 200 || typeof proof.body !== 'object' || proof.body === null) {
    notes.push(`no inclusion proof (GET /log/proof answered ${proof.status})`)
    return notes
  }
  const { leaf: _echoed, ...inclusion } = proof.body as Record<string, unknown>
  envelope['log_inclusion'] = inclusion
  notes.push('inclusion proof fetched from GET /log/proof')
  const reached = inclusion['log_checkpoint'] as Partial<LogCheckpoint> | undefined
  if (
    witnessed !== undefined &&
    reached !== undefined &&
    reached.log_id === witnessed.checkpoint.log_id &&
    reached.tree_size === witnessed.checkpoint.tree_size &&
    reached.root_hash === witnessed.checkpoint.root_hash
  ) {
    envelope['witness_signatures'] = witnessed.witnessSignatures
    notes.push('witness cosignatures fetched from GET /log/checkpoint')
  }
  return notes
}

/** The registry's newest checkpoint when it is served with witness cosignatures (best effort: else undefined). */
async function fetchWitnessedCheckpoint(
  read: RegistryJsonReader,
  registryUrl: string,
): Promise<{ checkpoint: LogCheckpoint; witnessSignatures: unknown[] } | undefined> {
  const answer = await read(registryUrl, '/log/checkpoint')
  const body = answer.body as { log_checkpoint?: unknown; witness_signatures?: unknown } | undefined
  if (answer.status !== 200 || typeof body !== 'object' || body === null) return undefined
  const checkpoint = body.log_checkpoint as LogCheckpoint | undefined
  if (typeof checkpoint !== 'object' || checkpoint === null || typeof checkpoint.tree_size !== 'number')
    return undefined
  if (!Array.isArray(body.witness_signatures) || body.witness_signatures.length === 0) return undefined
  return { checkpoint, witnessSignatures: body.witness_signatures }
}
