/**
 * Consumer-side verification of a retrieved context (RFC-ACDP-0001 §5.7, §5.8, §5.11; §5.11 "Recommended
 * verification report stage names"). Each stage is reported as `{ name, ok, detail }` so a CLI or a log can
 * show exactly what was checked. Stages run in the RFC's order and stop at the first failure: a body that is
 * not schema-valid never reaches hashing, and a signature is checked only over a hash that matched (§5.7
 * steps 3–4).
 *
 * Checks over the retrieval envelope (registry receipt, log inclusion, witness cosignatures) slot in through
 * {@link EnvelopeCheck}s; an envelope member nobody checked is listed in `unchecked`, never reported as passed.
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
import { type EvidenceOptions, verifyEvidence } from './verify-evidence.js'

/** One stage's outcome. `detail` is a human sentence (for a failure: what failed and the code). */
export interface VerificationCheck {
  name: string
  ok: boolean
  detail: string
}

/** The whole verdict. `ok` is true only when every run check passed and the signature stage was reached. */
export interface VerificationReport {
  ok: boolean
  ctxId: string | undefined
  checks: VerificationCheck[]
  /** Envelope members present but not verified by any configured {@link EnvelopeCheck}. */
  unchecked: string[]
  /**
   * Things the consumer should hear about that fail no stage, e.g. a well-formed `registry_state.status` this
   * version does not define (RFC-ACDP-0004 §4.1 "SHOULD log a warning"). Empty when there is nothing to say.
   */
  warnings: string[]
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
   * verify-evidence.ts). Without it those members are listed in `unchecked`.
   */
  evidence?: EvidenceOptions
}

/** The context body's compiled validator, compiled on the first body checked (not at import). */
const checkBodySchema = () => compiledValidator(ContextBody)

/**
 * Verifies a retrieval envelope `{ body, registry_state, … }` (attacker-controlled: every member is checked
 * before use). Stages: `schema`, `producer_content_hash`, `key_binding`, `did_resolution`, `signature`, then
 * the configured envelope checks. Never throws for bad data: every failure is a failed check.
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
  const body = envelope['body']
  const ctxId = isRecord(body) && typeof body['ctx_id'] === 'string' ? body['ctx_id'] : undefined
  const finish = (signatureReached: boolean, unchecked: string[]): VerificationReport => ({
    ok: signatureReached && checks.every((check) => check.ok),
    ctxId,
    checks,
    unchecked,
    warnings,
  })
  const record = (check: VerificationCheck) => {
    checks.push(check)
    return check.ok
  }

  if (!record(checkSchema(body, envelope['registry_state'], warnings))) return finish(false, [])
  const verifiedBody = body as Record<string, unknown> & ContextBody
  if (!record(checkContentHash(verifiedBody))) return finish(false, [])
  if (!record(checkKeyBinding(verifiedBody))) return finish(false, [])
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
  if (!record(resolution.check) || resolution.key === undefined) return finish(false, [])
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
  if (!record(signature)) return finish(true, [])

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
    for (const check of evidence.checks) record(check)
    covered.push(...evidence.covered)
  }
  const unchecked: string[] = []
  for (const member of EVIDENCE_MEMBERS) {
    if (envelope[member] === undefined) continue
    const applicable = (options.envelopeChecks ?? []).filter((check) => check.member === member)
    if (applicable.length === 0 && !covered.includes(member)) unchecked.push(member)
    for (const check of applicable) record(await runEnvelopeCheck(check, envelope, verifiedBody))
  }
  return finish(true, unchecked)
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
