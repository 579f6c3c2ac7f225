/**
 * The context inspector's verdicts, computed IN THE BROWSER with @acdp/protocol's own verification code (no
 * server-side "trust me"): the envelope comes from the control plane's federation proxy exactly as the registry
 * served it, and every mark below is derived from `verifyContext`'s stage report.
 *
 * Marks are the protocol's four stage states: `verified` (the check ran and passed), `failed` (it ran and did
 * not), `not_checked` (there was something to check but an earlier stage failed first), `not_available` (nothing
 * to check, or the evidence cannot be checked from a browser). Each comes with the stage's reason.
 *
 * The registry's evidence (receipt, log inclusion, witness cosignatures) is checked against trust material the
 * control plane relays from the enrolled registry WITHOUT vouching for it (GET /registries/:authority/did-document
 * and /log-evidence): the DID document is only the key source, exactly as if the browser had fetched it itself, and
 * every signature, hash and Merkle path is recomputed here.
 */
import {
  DidResolver,
  isProtocolError,
  type KeyResolver,
  parseDidKey,
  ProtocolError,
  type ResolvedKey,
  splitKeyId,
  type KeyRevocation,
  type StageState,
  type VerificationReport,
  type RegistryProfiles,
  type VerificationStage,
  verifyContext,
} from '@acdp/protocol/verify'

export type Mark = StageState

export type InspectionSubject = 'body' | 'signature' | 'registry_receipt' | 'log_inclusion' | 'witness_signatures'

export interface InspectionItem {
  subject: InspectionSubject
  label: string
  mark: Mark
  detail: string
}

export interface Inspection {
  items: InspectionItem[]
  report: VerificationReport | undefined
}

const LABELS: Record<InspectionSubject, string> = {
  body: 'Body (schema, content hash, key binding)',
  signature: 'Producer signature',
  registry_receipt: 'Registry receipt',
  log_inclusion: 'Transparency-log inclusion',
  witness_signatures: 'Witness signatures',
}

const BODY_STAGES = new Set(['schema', 'producer_content_hash', 'key_binding'])

/** What the control plane relayed from the context's registry (each part absent when it could not be had). */
export interface RegistryTrustMaterial {
  /** The registry's DID and its DID document text as served (GET /registries/:authority/did-document). */
  didDocument?: { did: string; document: string }
  /** Why the DID document is absent, shown on the evidence rows. */
  didDocumentProblem?: string
  /** Inclusion proof and cosignatures as served (GET /registries/:authority/log-evidence). */
  logEvidence?: { log_inclusion: unknown; witness_signatures: unknown[] | null }
  /** The consumer's clock for checkpoint and cosignature skew checks. */
  now: Date
  /**
   * The registry's advertised profiles as the control plane relays them (GET /registries/:authority/capabilities),
   * or why they are unknown: evidence the registry does not advertise is then not reported missing.
   */
  registryProfiles?: RegistryProfiles
  /**
   * The producer's key revocations, already verified (verify/revocation-lookup.ts); absent: not looked up, and the
   * `key_revocation` stage says so.
   */
  revocations?: readonly KeyRevocation[]
}

const NETWORK_ONLY = 'is resolved over the network'

/**
 * did:key identifiers resolve purely (the key is the identifier). A did:web document lives on its owner's web
 * server, which a browser on the console's origin may not contact (strict CSP `connect-src 'self'`): the only one
 * available is the registry's own, relayed by the control plane; any other did:web key is reported unavailable
 * rather than guessed. Failures are ProtocolErrors, as the protocol's stages expect of a resolver.
 */
export function browserKeyResolver(registry?: { did: string; document: string }): KeyResolver {
  const relayed =
    registry === undefined
      ? undefined
      : new DidResolver({
          // The relayed text stands for the did:web fetch; no other DID's document is ever answered.
          fetchDidDocument: async () => ({ status: 200, body: new TextEncoder().encode(registry.document) }),
          allowedMethods: ['web'],
        })
  return {
    async resolveKey(keyId, options): Promise<ResolvedKey> {
      const { did } = splitKeyId(keyId)
      if (did.startsWith('did:key:')) return { ...parseDidKey(did), did, keyId }
      if (relayed !== undefined && registry !== undefined && did === registry.did) {
        return relayed.resolveKey(keyId, { ...(options?.historical ? { historical: true } : {}) })
      }
      throw new ProtocolError(
        'key_resolution_failed',
        `${did} ${NETWORK_ONLY}; the console verifies did:key keys and the enrolled registry's own did:web`,
        { details: { reason: 'not_available_in_browser' } },
      )
    },
  }
}

/**
 * Inspects a retrieval envelope `{ body, registry_state, … }` (attacker-controlled; never throws for bad data).
 * With `trust`, the registry's evidence is verified too: the relayed inclusion proof and cosignatures join the
 * envelope (unless the registry already served them in it), and receipts and checkpoints resolve against the
 * relayed registry DID document.
 */
export async function inspectContext(envelope: unknown, trust?: RegistryTrustMaterial): Promise<Inspection> {
  if (typeof envelope !== 'object' || envelope === null || Array.isArray(envelope)) {
    return {
      report: undefined,
      items: (Object.keys(LABELS) as InspectionSubject[]).map((subject) => ({
        subject,
        label: LABELS[subject],
        mark: subject === 'body' ? 'failed' : subject === 'signature' ? 'not_checked' : 'not_available',
        detail: 'the answer is not a context envelope',
      })),
    }
  }
  const record = withLogEvidence(envelope as Record<string, unknown>, trust?.logEvidence)
  const canCheckEvidence = trust?.didDocument !== undefined
  let report: VerificationReport
  try {
    report = await verifyContext(record, {
      resolver: browserKeyResolver(trust?.didDocument),
      ...(trust?.registryProfiles === undefined ? {} : { registryProfiles: trust.registryProfiles }),
      ...(canCheckEvidence
        ? {
            evidence: {
              now: trust.now,
              ...(trust.revocations === undefined ? {} : { revocations: trust.revocations }),
            },
          }
        : {}),
    })
  } catch (error) {
    // A bug, not bad data (bad data is a failed check): say so instead of showing anything as verified.
    const detail = `verification stopped: ${isProtocolError(error) ? error.code : String(error)}`
    return {
      report: undefined,
      items: (Object.keys(LABELS) as InspectionSubject[]).map((subject) => ({
        subject,
        label: LABELS[subject],
        mark: 'not_checked',
        detail,
      })),
    }
  }
  const unavailable = trust?.didDocumentProblem ?? "the registry's signing key is not served to the console"
  return {
    report,
    items: [
      bodyItem(report.stages),
      signatureItem(report.stages),
      ...(['registry_receipt', 'log_inclusion', 'witness_signatures'] as const).map((subject) =>
        evidenceItem(subject, record, report, canCheckEvidence ? undefined : unavailable),
      ),
    ],
  }
}

/** The envelope with relayed log evidence added where the registry did not serve its own. */
function withLogEvidence(
  envelope: Record<string, unknown>,
  evidence: RegistryTrustMaterial['logEvidence'],
): Record<string, unknown> {
  if (evidence === undefined) return envelope
  const merged = { ...envelope }
  if (merged['log_inclusion'] === undefined && evidence.log_inclusion !== null) {
    merged['log_inclusion'] = evidence.log_inclusion
    if (merged['witness_signatures'] === undefined && evidence.witness_signatures !== null) {
      merged['witness_signatures'] = evidence.witness_signatures
    }
  }
  return merged
}

function bodyItem(stages: VerificationStage[]): InspectionItem {
  const item = { subject: 'body' as const, label: LABELS.body }
  const body = stages.filter((stage) => BODY_STAGES.has(stage.name))
  const failed = body.find((stage) => stage.state === 'failed')
  if (failed) return { ...item, mark: 'failed', detail: `${failed.name}: ${failed.reason}` }
  const hash = body.find((stage) => stage.name === 'producer_content_hash')
  return { ...item, mark: hash?.state ?? 'not_checked', detail: hash?.reason ?? 'the body was not checked' }
}

function signatureItem(stages: VerificationStage[]): InspectionItem {
  const item = { subject: 'signature' as const, label: LABELS.signature }
  const resolution = stages.find((stage) => stage.name === 'did_resolution')
  const signature = stages.find((stage) => stage.name === 'signature')
  // A did:web key the browser may not fetch is unavailable here, not wrong.
  if (resolution?.state === 'failed') {
    return {
      ...item,
      mark: resolution.reason.includes(NETWORK_ONLY) ? 'not_available' : 'failed',
      detail: resolution.reason,
    }
  }
  return signature === undefined
    ? { ...item, mark: 'not_checked', detail: 'the signature was not checked' }
    : { ...item, mark: signature.state, detail: signature.reason }
}

function evidenceItem(
  subject: 'registry_receipt' | 'log_inclusion' | 'witness_signatures',
  envelope: Record<string, unknown>,
  report: VerificationReport,
  unavailable: string | undefined,
): InspectionItem {
  const item = { subject, label: LABELS[subject] }
  const stage = report.stages.find((candidate) => candidate.name === subject)
  if (stage === undefined) return { ...item, mark: 'not_available', detail: 'the registry attached none' }
  // Served inside registry_state instead of beside body: there, but not where a verifier takes it from.
  const state = envelope['registry_state']
  const misplaced = typeof state === 'object' && state !== null && (state as Record<string, unknown>)[subject]
  if (stage.state === 'not_available' && misplaced !== undefined) {
    return {
      ...item,
      mark: 'not_available',
      detail: `present, but it cannot be checked here: ${unavailable ?? 'not beside the body'}`,
    }
  }
  // Cosignatures by witnesses whose did:web documents the browser cannot read are unchecked, not wrong.
  if (stage.state === 'failed' && subject === 'witness_signatures' && stage.reason.includes(NETWORK_ONLY)) {
    return { ...item, mark: 'not_available', detail: stage.reason }
  }
  // Evidence served but not verifiable without the registry's key (`unavailable`: no DID document relayed).
  if (stage.state === 'not_checked' && unavailable !== undefined && !report.checks.some((check) => !check.ok)) {
    return { ...item, mark: 'not_available', detail: `present, but it cannot be checked here: ${unavailable}` }
  }
  return { ...item, mark: stage.state, detail: stage.reason }
}
