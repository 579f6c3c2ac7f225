/**
 * Consumer-side verification of a retrieved context (RFC-ACDP-0001 §5.7, §5.8, §5.11; §5.11 "Recommended
 * verification report stage names"). Every stage is reported in one of four states (verification-stage.ts) so a
 * CLI or a log shows exactly what was checked and what was not. Stages run in the RFC's order and stop at the
 * first failure: a body that is not schema-valid never reaches hashing, and a signature is checked only over a
 * hash that matched (§5.7 steps 3–4); the stages after it are reported `not_checked`, not dropped.
 *
 * Checks over the retrieval envelope (registry receipt, log inclusion, witness cosignatures) slot in through
 * {@link EnvelopeCheck}s; an envelope member nobody checked is `not_checked` and listed in `unchecked`, never
 * reported as passed.
 */
import { splitKeyId } from '../did/key-id.js'
import { isDidWebOnlyVersion } from '../did/producer-version.js'
import type { ResolvedKey } from '../did/resolver.js'
import { isProtocolError } from '../errors.js'
import { computeContentHash } from '../hash/content-hash.js'
import { verifyContentSignature } from '../signature/content-signature.js'
import { ContextBody } from '../wire/context-body.js'
import { compiledValidator } from '../wire/compiled-validator.js'
import { readRegistryStatus, unknownStatusWarning } from '../wire/registry-status.js'
import { applyRequirement, type EvidenceRequirement } from './evidence-requirement.js'
import { inReportOrder, ranStage, type VerificationStage } from './verification-stage.js'
import { applyProfiles, type RegistryProfiles } from './registry-profiles.js'
import { summarizeStages } from './verification-summary.js'
import { type DataRefOptions, dataRefStageName, verifyDataRefs } from './verify-data-refs.js'
import { type EvidenceOptions, verifyEvidence } from './verify-evidence.js'

/** One stage that ran. `detail` is a human sentence (for a failure: what failed and the code). */
export interface VerificationCheck {
  name: string
  ok: boolean
  detail: string
}

/** The whole verdict. `ok` is true only when the signature stage was reached and no stage failed. */
export interface VerificationReport {
  ok: boolean
  ctxId: string | undefined
  /** The stages that ran (verified or failed). */
  checks: VerificationCheck[]
  /** Every stage in report order, in one of the four states, with its reason (the whole truth). */
  stages: VerificationStage[]
  /** Names of the stages in state `not_checked`: there was something to check and this run did not. */
  unchecked: string[]
  /**
   * Things the consumer should hear about that fail no stage, e.g. a well-formed `registry_state.status` this
   * version does not define (RFC-ACDP-0004 §4.1 "SHOULD log a warning"). Empty when there is nothing to say.
   */
  warnings: string[]
  /**
   * One line: "verified: …" only when every stage the context and the registry's profiles call for was
   * verified, else what failed or is missing (and, when the profiles are unknown, that they are).
   */
  summary: string
  /** The registry profiles the report was judged against, as given in `registryProfiles` (absent: not given). */
  profiles?: RegistryProfiles
}

/** Resolves a `signature.key_id` to a key; {@link DidResolver} satisfies it (`historical`: verificationMethod suffices). */
export interface KeyResolver {
  resolveKey(keyId: string, options?: { forceRefresh?: boolean; historical?: boolean }): Promise<ResolvedKey>
}

/**
 * A verification over an envelope member beside `body` (e.g. `registry_receipt` per RFC-ACDP-0010 §8,
 * `log_inclusion` per RFC-ACDP-0012). Runs only when the body stages passed and the envelope carries `member`.
 */
export interface EnvelopeCheck {
  /** Envelope member this check covers. */
  member: string
  /** Stage name reported (RFC stage vocabulary where one exists, e.g. `registry_receipt`). */
  name: string
  run(envelope: Record<string, unknown>, body: Record<string, unknown>): Promise<VerificationCheck> | VerificationCheck
}

/** Envelope members that carry verifiable evidence (RFC-ACDP-0004 §2, RFC-ACDP-0010/0011/0012/0015). */
export const EVIDENCE_MEMBERS = [
  'registry_receipt',
  'lineage_head_receipt',
  'log_inclusion',
  'witness_signatures',
] as const

/** Options of {@link verifyContext}. */
export interface VerifyContextOptions {
  resolver: KeyResolver
  envelopeChecks?: readonly EnvelopeCheck[]
  /**
   * Verify the registry's evidence too (receipt, log inclusion, witness cosignatures, key revocation; see
   * verify-evidence.ts). Without it those stages are `not_checked` (or `not_available` when nothing was served).
   */
  evidence?: EvidenceOptions
  /** Evidence whose absence fails the verification (see evidence-requirement.ts). */
  require?: EvidenceRequirement
  /** How `data_refs[]` are verified (see verify-data-refs.ts); without it, locations are `not_checked`. */
  dataRefs?: DataRefOptions
  /**
   * The serving registry's advertised profiles ({@link fetchRegistryProfiles}): evidence they do not promise
   * (no `acdp-registry-receipts` → no receipt expected) does not make the summary incomplete. `known: false`
   * (the capabilities could not be read) is said in the summary and every evidence stage counts as called for,
   * as it does when this option is absent. `require` is applied regardless.
   */
  registryProfiles?: RegistryProfiles
}

/** The context body's compiled validator, compiled on the first body checked (not at import). */
const checkBodySchema = () => compiledValidator(ContextBody)

const BODY_STAGES = ['schema', 'producer_content_hash', 'key_binding', 'did_resolution', 'signature']

/**
 * Verifies a retrieval envelope `{ body, registry_state, … }` (attacker-controlled: every member is checked
 * before use). Stages: `schema`, `producer_content_hash`, `key_binding`, `did_resolution`, `signature`, then
 * the evidence stages, the configured envelope checks and one `data_ref[i]` per DataRef. Stages run in the RFC's
 * order; after a failure the later stages are reported `not_checked` with the stage that failed. Never throws for
 * bad data: every failure is a failed stage.
 *
 * @throws TypeError when `envelope` is not an object (caller misuse).
 */
export async function verifyContext(
  envelope: Record<string, unknown>,
  options: VerifyContextOptions,
): Promise<VerificationReport> {
  if (typeof envelope !== 'object' || envelope === null || Array.isArray(envelope)) {
    throw new TypeError('verifyContext expects the retrieval envelope object')
  }
  const checks: VerificationCheck[] = []
  const warnings: string[] = []
  let stages: VerificationStage[] = []
  let witnessCount = 0
  const body = envelope['body']
  const ctxId = isRecord(body) && typeof body['ctx_id'] === 'string' ? body['ctx_id'] : undefined
  const finish = (signatureReached: boolean): VerificationReport => {
    if (!signatureReached) stages.push(...notCheckedAfter(checks.at(-1)?.name ?? 'schema', envelope, options))
    if (options.require !== undefined) stages = applyRequirement(stages, options.require, witnessCount)
    const ordered = applyProfiles(inReportOrder(stages), options.registryProfiles)
    return {
      ok: signatureReached && ordered.every((stage) => stage.state !== 'failed'),
      ctxId,
      checks,
      stages: ordered,
      unchecked: ordered.filter((stage) => stage.state === 'not_checked').map((stage) => stage.name),
      warnings,
      summary: summarizeStages(ordered, options.registryProfiles),
      ...(options.registryProfiles === undefined ? {} : { profiles: options.registryProfiles }),
    }
  }
  const record = (check: VerificationCheck) => {
    checks.push(check)
    stages.push(ranStage(check))
    return check.ok
  }

  if (!record(checkSchema(body, envelope['registry_state'], warnings))) return finish(false)
  const verifiedBody = body as Record<string, unknown> & ContextBody
  if (!record(checkContentHash(verifiedBody))) return finish(false)
  if (!record(checkKeyBinding(verifiedBody))) return finish(false)
  let resolution = await resolveKey(options.resolver, verifiedBody.signature.key_id)
  let historicalKey = false
  if (
    resolution.key === undefined &&
    resolution.reason === 'not_in_assertion_method' &&
    options.evidence !== undefined &&
    envelope['registry_receipt'] !== undefined
  ) {
    // RFC-ACDP-0010 §10: a retired key may verify a historical context whose receipt attests it (checked below).
    resolution = await resolveKey(options.resolver, verifiedBody.signature.key_id, false, true)
    historicalKey = resolution.key !== undefined
  }
  if (!record(resolution.check) || resolution.key === undefined) return finish(false)
  let key = resolution.key
  let signature = checkSignature(verifiedBody, key)
  if (!signature.ok && key.did.startsWith('did:web:')) {
    // §5.11 "Caching": refresh once on a failure that could be a key rotation.
    const refreshed = await resolveKey(options.resolver, verifiedBody.signature.key_id, true, historicalKey)
    if (refreshed.key !== undefined) {
      signature = checkSignature(verifiedBody, refreshed.key)
      key = refreshed.key
    }
  }
  if (!record(signature)) return finish(false)

  const covered: string[] = []
  if (options.evidence !== undefined) {
    const evidence = await verifyEvidence({
      envelope,
      body: verifiedBody,
      key,
      historicalKey,
      contentHash: verifiedBody.content_hash,
      resolver: options.resolver,
      options: options.evidence,
    })
    checks.push(...evidence.checks)
    stages.push(...evidence.stages)
    covered.push(...evidence.covered)
    witnessCount = evidence.witnessCount
  } else {
    const checkedByCaller = new Set((options.envelopeChecks ?? []).map((check) => check.member))
    const notRequested = evidenceNotRequested(envelope).filter((stage) => !checkedByCaller.has(stage.name))
    stages.push(...notRequested)
    covered.push(...notRequested.map((stage) => stage.name))
  }
  for (const member of EVIDENCE_MEMBERS) {
    const applicable = (options.envelopeChecks ?? []).filter((check) => check.member === member)
    for (const check of applicable) {
      if (envelope[member] === undefined) {
        stages.push({ name: check.name, state: 'not_available', reason: `the registry attaches no ${member}` })
      } else {
        record(await runEnvelopeCheck(check, envelope, verifiedBody))
      }
    }
    if (applicable.length > 0 || covered.includes(member) || envelope[member] === undefined) continue
    stages.push({ name: member, state: 'not_checked', reason: `present, but this verifier does not check ${member}` })
  }
  stages.push(...(await verifyDataRefs(verifiedBody, options.dataRefs ?? {})))
  return finish(true)
}

/** The evidence stages when the caller did not ask for them: what was served is `not_checked`, the rest absent. */
function evidenceNotRequested(envelope: Record<string, unknown>): VerificationStage[] {
  const reason = 'registry evidence was not requested (no evidence options)'
  const stages: VerificationStage[] = []
  if (envelope['lineage_head_receipt'] !== undefined)
    stages.push({ name: 'lineage_head_receipt', state: 'not_checked', reason })
  for (const member of ['registry_receipt', 'log_inclusion', 'witness_signatures']) {
    stages.push(
      envelope[member] === undefined
        ? { name: member, state: 'not_available', reason: `the registry attaches no ${member}` }
        : { name: member, state: 'not_checked', reason },
    )
  }
  stages.push({ name: 'key_revocation', state: 'not_checked', reason })
  if (lifecycleEventsOf(envelope) !== undefined) stages.push({ name: 'lifecycle_events', state: 'not_checked', reason })
  return stages
}

/** Every stage after `failed` (a body stage), reported `not_checked` because that one failed first. */
function notCheckedAfter(
  failed: string,
  envelope: Record<string, unknown>,
  options: VerifyContextOptions,
): VerificationStage[] {
  const reason = `not checked: the ${failed} stage failed first`
  const later = [
    ...BODY_STAGES.slice(BODY_STAGES.indexOf(failed) + 1),
    'registry_receipt',
    ...(envelope['lineage_head_receipt'] === undefined ? [] : ['lineage_head_receipt']),
    'log_inclusion',
    'witness_signatures',
    'key_revocation',
    ...(lifecycleEventsOf(envelope) === undefined ? [] : ['lifecycle_events']),
    ...(options.envelopeChecks ?? []).filter((check) => envelope[check.member] !== undefined).map((c) => c.name),
  ]
  const dataRefs = isRecord(envelope['body']) ? envelope['body']['data_refs'] : undefined
  const refCount = Array.isArray(dataRefs) ? dataRefs.length : 0
  return [...new Set(later), ...Array.from({ length: refCount }, (_, index) => dataRefStageName(index))].map(
    (name) => ({ name, state: 'not_checked' as const, reason }),
  )
}

function lifecycleEventsOf(envelope: Record<string, unknown>): unknown {
  const state = envelope['registry_state']
  return isRecord(state) ? state['lifecycle_events'] : undefined
}

/**
 * The `schema` stage: the body against the context body schema and, when the envelope carries `registry_state`,
 * its `status` against RFC-ACDP-0004 §4.1 (malformed: `schema_violation`; well-formed but unknown: a warning).
 */
function checkSchema(body: unknown, registryState: unknown, warnings: string[]): VerificationCheck {
  if (!isRecord(body)) return { name: 'schema', ok: false, detail: 'the envelope has no body object' }
  if (registryState !== undefined) {
    const status = readRegistryStatus(isRecord(registryState) ? registryState['status'] : undefined)
    if (status.kind === 'malformed') {
      return { name: 'schema', ok: false, detail: `schema_violation: malformed registry state: ${status.problem}` }
    }
    if (status.kind === 'unknown') warnings.push(unknownStatusWarning(status.status))
  }
  if (checkBodySchema().Check(body)) {
    const methodProblem = checkDidMethodForVersion(body as ContextBody)
    return methodProblem === undefined
      ? { name: 'schema', ok: true, detail: 'body matches acdp-context-body.schema.json' }
      : { name: 'schema', ok: false, detail: methodProblem }
  }
  const problems = [...checkBodySchema().Errors(body)]
    .slice(0, 3)
    .map((error) => `${error.instancePath || '/'} ${error.message}`)
  return { name: 'schema', ok: false, detail: `body violates the context body schema: ${problems.join('; ')}` }
}

// RFC-ACDP-0001 §5.4: a body declaring (or defaulting to) 0.1.0 must be signed by a did:web producer; did:key
// arrived in 0.2.0.
function checkDidMethodForVersion(body: ContextBody): string | undefined {
  const declared = typeof body.acdp_version === 'string' ? body.acdp_version : '0.1.0'
  if (isDidWebOnlyVersion(declared) && !body.agent_id.startsWith('did:web:')) {
    return `acdp_version ${declared} requires a did:web agent_id (did:key needs acdp_version >= 0.2.0)`
  }
  return undefined
}

function checkContentHash(body: ContextBody & Record<string, unknown>): VerificationCheck {
  let recomputed: string
  try {
    recomputed = computeContentHash(body)
  } catch (error) {
    return { name: 'producer_content_hash', ok: false, detail: `producer content cannot be hashed: ${describe(error)}` }
  }
  return recomputed === body.content_hash
    ? { name: 'producer_content_hash', ok: true, detail: `content_hash ${recomputed} recomputed over ProducerContent` }
    : {
        name: 'producer_content_hash',
        ok: false,
        detail: `hash_mismatch: body says ${body.content_hash}, content hashes to ${recomputed}`,
      }
}

function checkKeyBinding(body: ContextBody): VerificationCheck {
  let did: string
  try {
    did = splitKeyId(body.signature.key_id).did
  } catch (error) {
    return { name: 'key_binding', ok: false, detail: `signature.key_id is not a DID URL: ${describe(error)}` }
  }
  return did === body.agent_id
    ? { name: 'key_binding', ok: true, detail: `signature.key_id belongs to agent_id ${body.agent_id}` }
    : {
        name: 'key_binding',
        ok: false,
        detail: `key_not_authorized: signature.key_id names ${did}, agent_id is ${body.agent_id}`,
      }
}

async function resolveKey(
  resolver: KeyResolver,
  keyId: string,
  forceRefresh = false,
  historical = false,
): Promise<{ check: VerificationCheck; key?: ResolvedKey; reason?: string }> {
  try {
    const key = await resolver.resolveKey(keyId, {
      ...(forceRefresh ? { forceRefresh } : {}),
      ...(historical ? { historical } : {}),
    })
    const how = key.did.startsWith('did:key:')
      ? 'decoded from the did:key itself'
      : historical
        ? 'found in the DID document verificationMethod only (retired key)'
        : 'resolved from the DID document'
    return { check: { name: 'did_resolution', ok: true, detail: `${key.algorithm} key ${how}` }, key }
  } catch (error) {
    const reason =
      isProtocolError(error) && typeof error.details?.['reason'] === 'string' ? error.details['reason'] : undefined
    return {
      check: { name: 'did_resolution', ok: false, detail: `key ${keyId} did not resolve: ${describe(error)}` },
      ...(reason === undefined ? {} : { reason }),
    }
  }
}

function checkSignature(body: ContextBody, key: ResolvedKey): VerificationCheck {
  const { algorithm, value } = body.signature
  if (algorithm !== key.algorithm) {
    return {
      name: 'signature',
      ok: false,
      detail: `invalid_signature: signature.algorithm ${algorithm} does not fit the ${key.algorithm} key`,
    }
  }
  try {
    const valid = verifyContentSignature({
      algorithm,
      publicKey: key.publicKey,
      contentHash: body.content_hash,
      signature: value,
    })
    return valid
      ? { name: 'signature', ok: true, detail: `${algorithm} signature over the content_hash verifies` }
      : {
          name: 'signature',
          ok: false,
          detail: `invalid_signature: the ${algorithm} signature does not verify under ${key.keyId}`,
        }
  } catch (error) {
    return { name: 'signature', ok: false, detail: `invalid_signature: ${describe(error)}` }
  }
}

async function runEnvelopeCheck(
  check: EnvelopeCheck,
  envelope: Record<string, unknown>,
  body: Record<string, unknown>,
): Promise<VerificationCheck> {
  try {
    return await check.run(envelope, body)
  } catch (error) {
    return { name: check.name, ok: false, detail: describe(error) }
  }
}

function describe(error: unknown): string {
  if (isProtocolError(error)) return `${error.code} (${error.message})`
  return error instanceof Error ? error.message : String(error)
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
