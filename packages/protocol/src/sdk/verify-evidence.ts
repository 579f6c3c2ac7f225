/**
 * The evidence stages of consumer verification, run after the body stages passed (see verify-context.ts):
 *
 * - `registry_receipt` — RFC-ACDP-0010 §8 against the authority of the context's ctx_id, with the producer key
 *   the body stages resolved (retired receipt keys accepted from verificationMethod, §9);
 * - `log_inclusion` — RFC-ACDP-0012 §9.1: the leaf rebuilt from the VERIFIED receipt (never an echoed `leaf`)
 *   is proven under a signed checkpoint of the same registry;
 * - `witness_signatures` — RFC-ACDP-0015 §8: every cosignature must verify over the verified checkpoint; the
 *   stage reports how many distinct witnesses cosigned;
 * - `lineage_head_receipt` (only when served) — RFC-ACDP-0011 §7 for a full retrieval: bound to this registry,
 *   signed by it, naming this lineage and this context or a newer head; staleness is the consumer's policy (§6);
 * - `historical_key` — RFC-ACDP-0010 §10: a key found only in verificationMethod is acceptable only with a
 *   verified receipt attesting it;
 * - `key_revocation` — RFC-ACDP-0014 §7: when a known verified revocation names the signing key, the
 *   receipt-attested publish time must be strictly before the earliest boundary; otherwise fail closed;
 * - `lifecycle_events` — RFC-ACDP-0013 §5 consumer verification of `registry_state.lifecycle_events`: each event
 *   bound to this ctx_id, producer events signed by a key of the producer (historical keys accepted: events are
 *   history), registry events by the registry's DID or unsigned (reported as attributable to transport only).
 *
 * A member the registry did not serve is reported `not_available`; a stage needing an earlier one that failed or
 * is absent is `not_checked` with that reason (never passed by default); `key_revocation` without a revocation
 * lookup is `not_checked`.
 */
import { verifyLogInclusion } from '../checkpoint/verify-log-proofs.js'
import { countWitnesses } from '../cosignature/verify-cosignature.js'
import type { ResolvedKey } from '../did/resolver.js'
import { isProtocolError } from '../errors.js'
import { verifyLifecycleEventSignature } from '../lifecycle/lifecycle-event.js'
import { computeKeyFingerprint } from '../keys/index.js'
import { buildLogLeaf, computeLogLeafHash } from '../merkle/log-leaf.js'
import { authorityOfCtxId } from '../receipt/registry-binding.js'
import { verifyLineageHeadReceipt } from '../receipt/lineage-head-receipt.js'
import { verifyRegistryReceipt } from '../receipt/registry-receipt.js'
import { evaluateCompromiseBoundary, selectEffectiveCompromisedSince } from '../revocation/compromise-boundary.js'
import type { KeyRevocation } from '../revocation/key-revocation.js'
import type { LogCheckpoint, RegistryReceipt } from '../wire/log.js'
import type { KeyResolver, VerificationCheck } from './verify-context.js'
import { ranStage, type VerificationStage } from './verification-stage.js'

/** What the evidence stages need from the consumer. */
export interface EvidenceOptions {
  /** The consumer's clock (checkpoint and cosignature skew checks). */
  now: Date
  /** Witness DIDs the consumer trusts; absent or empty: any witness whose cosignature verifies is counted. */
  trustedWitnesses?: readonly string[]
  /**
   * Key revocations the consumer already verified (RFC-ACDP-0014 §5–§6). When given, a `key_revocation` stage
   * always runs; when absent the stage is reported `not_checked` (the consumer did not look for revocations).
   */
  revocations?: readonly KeyRevocation[]
}

/** Input of {@link verifyEvidence}: the envelope and what the body stages established. */
export interface EvidenceInput {
  envelope: Record<string, unknown>
  body: Record<string, unknown> & { ctx_id?: unknown; agent_id: string }
  /** The producer key the signature verified under. */
  key: ResolvedKey
  /** True when that key was found only in verificationMethod (historical resolution). */
  historicalKey: boolean
  /** The content hash the body stages recomputed. */
  contentHash: string
  resolver: KeyResolver
  options: EvidenceOptions
}

/** What {@link verifyEvidence} found. */
export interface EvidenceResult {
  /** The stages that ran. */
  checks: VerificationCheck[]
  /** Every evidence stage in the four-state form, those that did not run included. */
  stages: VerificationStage[]
  /** Envelope members these stages covered (present or not). */
  covered: string[]
  /** Distinct witnesses whose cosignatures verified (0 when the stage did not run). */
  witnessCount: number
}

/** Runs the evidence stages. */
export async function verifyEvidence(input: EvidenceInput): Promise<EvidenceResult> {
  const { envelope, body, key, resolver, options } = input
  const checks: VerificationCheck[] = []
  const stages: VerificationStage[] = []
  const covered: string[] = ['registry_receipt', 'lineage_head_receipt', 'log_inclusion', 'witness_signatures']
  let witnessCount = 0
  const ran = (check: VerificationCheck) => {
    checks.push(check)
    stages.push(ranStage(check))
  }
  const notRun = (name: string, state: 'not_available' | 'not_checked', reason: string) =>
    stages.push({ name, state, reason })
  const authority = typeof body.ctx_id === 'string' ? authorityOfCtxId(body.ctx_id) : undefined
  const resolveHistorical = (keyId: string) => resolver.resolveKey(keyId, { historical: true })

  let receipt: RegistryReceipt | undefined
  let receiptFailure: string | undefined = 'no registry_receipt was served'
  if (envelope['registry_receipt'] === undefined) {
    notRun('registry_receipt', 'not_available', 'the registry attaches no registry_receipt')
  } else {
    try {
      if (authority === undefined) throw new Error('the body has no acdp:// ctx_id to bind the receipt to')
      receipt = (
        await verifyRegistryReceipt({
          receipt: envelope['registry_receipt'],
          authority,
          resolveKey: resolveHistorical,
          context: {
            ctx_id: String(body.ctx_id),
            lineage_id: String(body['lineage_id']),
            origin_registry: String(body['origin_registry']),
            created_at: String(body['created_at']),
          },
          contentHash: input.contentHash,
          producerKey: key,
        })
      ).receipt
      receiptFailure = undefined
      ran({
        name: 'registry_receipt',
        ok: true,
        detail: `receipt by ${receipt.registry_did} verifies: accepted at ${receipt.created_at}, key ${receipt.key_fingerprint}`,
      })
    } catch (error) {
      receiptFailure = 'the registry_receipt did not verify'
      ran({ name: 'registry_receipt', ok: false, detail: `invalid_receipt: ${describe(error)}` })
    }
  }

  if (envelope['lineage_head_receipt'] !== undefined) ran(await checkHeadReceipt(input, authority))

  let checkpoint: LogCheckpoint | undefined
  let checkpointFailure = 'no log_inclusion was served'
  if (envelope['log_inclusion'] === undefined) {
    notRun('log_inclusion', 'not_available', 'no inclusion proof was served or found')
  } else {
    if (receipt === undefined || authority === undefined) {
      checkpointFailure = 'log_inclusion was not checked'
      // The leaf is rebuilt from the verified receipt (RFC-ACDP-0012 §9.1): without one there is nothing to prove.
      notRun('log_inclusion', 'not_checked', `the proof needs a verified receipt; ${receiptFailure ?? 'none'}`)
    } else {
      try {
        const inclusion = envelope['log_inclusion'] as { leaf_index?: number; tree_size?: number }
        checkpoint = (
          await verifyLogInclusion(envelope['log_inclusion'], computeLogLeafHash(buildLogLeaf(receipt)), {
            authority,
            resolveKey: resolveHistorical,
            now: options.now,
          })
        ).checkpoint
        ran({
          name: 'log_inclusion',
          ok: true,
          detail: `leaf ${inclusion.leaf_index} is in ${checkpoint.log_id} at tree size ${inclusion.tree_size} (signed checkpoint, root ${checkpoint.root_hash})`,
        })
      } catch (error) {
        checkpointFailure = 'the log_inclusion did not verify'
        ran({ name: 'log_inclusion', ok: false, detail: `invalid_log_proof: ${describe(error)}` })
      }
    }
  }

  const cosignatures = envelope['witness_signatures']
  if (cosignatures === undefined) {
    notRun('witness_signatures', 'not_available', 'no witness cosignatures were served for this checkpoint')
  } else {
    if (checkpoint === undefined) {
      notRun('witness_signatures', 'not_checked', `the cosignatures need a verified checkpoint; ${checkpointFailure}`)
    } else if (!Array.isArray(cosignatures) || cosignatures.length === 0) {
      ran({
        name: 'witness_signatures',
        ok: false,
        detail: 'invalid_witness_cosignature: not a non-empty array',
      })
    } else {
      const trusted = options.trustedWitnesses ?? []
      const count = await countWitnesses(cosignatures, {
        checkpoint,
        resolveKey: resolveHistorical,
        isTrustedWitness: (id) => trusted.length === 0 || trusted.includes(id),
        now: options.now,
      })
      const ok = count.failures.length === 0 && count.count > 0
      if (ok) witnessCount = count.count
      const failed = count.failures.map((f) => `#${f.index}: ${describe(f.error)}`).join('; ')
      ran({
        name: 'witness_signatures',
        ok,
        detail: ok
          ? `${count.count}-witnessed: ${count.witnessIds.join(', ')}${trusted.length === 0 ? ' (no witness trust list given)' : ''}`
          : `invalid_witness_cosignature: ${failed || 'no trusted witness cosigned'}`,
      })
    }
  }

  if (input.historicalKey) {
    ran(
      receipt === undefined
        ? { name: 'historical_key', ok: false, detail: `key is no longer in assertionMethod and ${receiptFailure}` }
        : {
            name: 'historical_key',
            ok: true,
            detail: 'key retired from assertionMethod: historically authorized (receipt-attested)',
          },
    )
  }

  if (options.revocations === undefined) {
    notRun('key_revocation', 'not_checked', "the producer's key revocations were not looked up")
  } else {
    ran(checkRevocation(input, receipt, options.revocations))
  }
  const lifecycle = await checkLifecycleEvents(input, authority)
  if (lifecycle !== undefined) ran(lifecycle)
  return { checks, stages, covered, witnessCount }
}

async function checkHeadReceipt(input: EvidenceInput, authority: string | undefined): Promise<VerificationCheck> {
  const name = 'lineage_head_receipt'
  const state = input.envelope['registry_state'] as Record<string, unknown> | undefined
  try {
    if (authority === undefined) throw new Error('the body has no acdp:// ctx_id to bind the receipt to')
    const { receipt, ageMs } = await verifyLineageHeadReceipt({
      receipt: input.envelope['lineage_head_receipt'],
      authority,
      resolveKey: (keyId) => input.resolver.resolveKey(keyId, { historical: true }),
      lineageId: String(input.body['lineage_id']),
      endpoint: 'context',
      served: {
        ctx_id: String(input.body.ctx_id),
        version: Number(input.body['version']),
        status: String(state?.['status']),
      },
      now: input.options.now,
    })
    const head = receipt.head_ctx_id === input.body.ctx_id ? 'this context' : `newer head ${receipt.head_ctx_id}`
    return {
      name,
      ok: true,
      detail: `head receipt by ${receipt.registry_did} verifies: ${head} (version ${receipt.head_version}, ${receipt.head_status}) as of ${receipt.as_of}, ${Math.round(ageMs / 1000)} s old`,
    }
  } catch (error) {
    return { name, ok: false, detail: `invalid_receipt: ${describe(error)}` }
  }
}

async function checkLifecycleEvents(
  input: EvidenceInput,
  authority: string | undefined,
): Promise<VerificationCheck | undefined> {
  const state = input.envelope['registry_state']
  const events =
    typeof state === 'object' && state !== null ? (state as Record<string, unknown>)['lifecycle_events'] : undefined
  if (events === undefined) return undefined
  const fail = (detail: string): VerificationCheck => ({ name: 'lifecycle_events', ok: false, detail })
  if (!Array.isArray(events) || events.length === 0) return fail('lifecycle_events is not a non-empty array')
  const registryDid = authority === undefined ? undefined : `did:web:${authority}`
  let unsigned = 0
  for (const [index, event] of events.entries()) {
    const e = event as Record<string, unknown>
    if (typeof e !== 'object' || e === null || e['ctx_id'] !== input.body.ctx_id) {
      return fail(`event #${index} is not bound to this ctx_id`)
    }
    const byProducer = e['actor'] === input.body.agent_id
    const byRegistry = registryDid !== undefined && e['actor'] === registryDid
    if (!byProducer && !byRegistry)
      return fail(`event #${index}: actor ${String(e['actor'])} is neither the producer nor the registry`)
    if (e['signature'] === undefined) {
      if (byProducer) return fail(`event #${index}: a producer event must be signed (RFC-ACDP-0013 §5)`)
      unsigned++
      continue
    }
    try {
      await verifyLifecycleEventSignature(e as never, (keyId) => input.resolver.resolveKey(keyId, { historical: true }))
    } catch (error) {
      return fail(`event #${index} (${String(e['event_type'])}) does not verify: ${describe(error)}`)
    }
  }
  return {
    name: 'lifecycle_events',
    ok: true,
    detail:
      `${events.length} event(s) bound to this context, ${events.length - unsigned} signature(s) verify` +
      (unsigned > 0 ? `, ${unsigned} unsigned registry event(s) (attributable to the transport only)` : ''),
  }
}

function checkRevocation(
  input: EvidenceInput,
  receipt: RegistryReceipt | undefined,
  revocations: readonly KeyRevocation[],
): VerificationCheck {
  const fingerprint = computeKeyFingerprint(input.key)
  const applicable = revocations.filter(
    (r) => r.revokedKeyFingerprint === fingerprint && r.controller === input.body.agent_id,
  )
  if (applicable.length === 0) {
    return {
      name: 'key_revocation',
      ok: true,
      detail: `no known revocation names key ${fingerprint} (${revocations.length} checked)`,
    }
  }
  const boundary = selectEffectiveCompromisedSince(applicable.map((r) => r.compromisedSince)) as string
  const classes = [...new Set(applicable.map((r) => r.trustClass))].join(', ')
  const verdict = evaluateCompromiseBoundary({ compromisedSince: boundary, receiptCreatedAt: receipt?.created_at })
  if (verdict.outcome === 'historically_authorized') {
    return {
      name: 'key_revocation',
      ok: true,
      detail: `key revoked since ${boundary} (${classes}); published ${receipt?.created_at}: historically authorized (pre-compromise, receipt-attested)`,
    }
  }
  return {
    name: 'key_revocation',
    ok: false,
    detail:
      verdict.reason === 'at_or_after_compromise'
        ? `key revoked since ${boundary} (${classes}); published ${receipt?.created_at}, at or after the boundary: fail closed`
        : `key revoked since ${boundary} (${classes}); no verified receipt places the publish before it: fail closed`,
  }
}

function describe(error: unknown): string {
  if (isProtocolError(error)) {
    const reason = error.details?.['reason']
    return typeof reason === 'string' ? `${error.code}/${reason}` : `${error.code} (${error.message})`
  }
  return error instanceof Error ? error.message : String(error)
}
