/**
 * The context inspector's verdicts, computed IN THE BROWSER with @acdp/protocol's own verification code (no
 * server-side "trust me"): the envelope comes from the control plane's federation proxy exactly as the registry
 * served it, and every mark below is derived from `verifyContext`'s stage report.
 *
 * Marks: `verified` (the check ran and passed), `not_verified` (it ran and failed, or could not run because an
 * earlier stage failed), `not_available` (nothing to check, or the evidence cannot be checked from a browser).
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
  type VerificationCheck,
  type VerificationReport,
  verifyContext,
} from '@acdp/protocol/verify'

export type Mark = 'verified' | 'not_verified' | 'not_available'

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
        mark: subject === 'body' || subject === 'signature' ? 'not_verified' : 'not_available',
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
      ...(canCheckEvidence ? { evidence: { now: trust.now } } : {}),
    })
  } catch (error) {
    // A bug, not bad data (bad data is a failed check): say so instead of showing anything as verified.
    const detail = `verification stopped: ${isProtocolError(error) ? error.code : String(error)}`
    return {
      report: undefined,
      items: (Object.keys(LABELS) as InspectionSubject[]).map((subject) => ({
        subject,
        label: LABELS[subject],
        mark: 'not_verified',
        detail,
      })),
    }
  }
  const unavailable = trust?.didDocumentProblem ?? "the registry's signing key is not served to the console"
  return {
    report,
    items: [
      bodyItem(report.checks),
      signatureItem(report.checks),
      ...(['registry_receipt', 'log_inclusion', 'witness_signatures'] as const).map((subject) =>
        evidenceItem(subject, record, report, unavailable),
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

function bodyItem(checks: VerificationCheck[]): InspectionItem {
  const stages = checks.filter((check) => BODY_STAGES.has(check.name))
  const failed = stages.find((check) => !check.ok)
  const item = { subject: 'body' as const, label: LABELS.body }
  if (failed) return { ...item, mark: 'not_verified', detail: `${failed.name}: ${failed.detail}` }
  const hash = stages.find((check) => check.name === 'producer_content_hash')
  return { ...item, mark: 'verified', detail: hash?.detail ?? 'body checks passed' }
}

function signatureItem(checks: VerificationCheck[]): InspectionItem {
  const item = { subject: 'signature' as const, label: LABELS.signature }
  const resolution = checks.find((check) => check.name === 'did_resolution')
  const signature = checks.find((check) => check.name === 'signature')
  if (resolution === undefined) {
    return { ...item, mark: 'not_verified', detail: 'not checked: the body failed its checks first' }
  }
  if (!resolution.ok) {
    const unavailable = resolution.detail.includes(NETWORK_ONLY)
    return { ...item, mark: unavailable ? 'not_available' : 'not_verified', detail: resolution.detail }
  }
  if (signature === undefined) return { ...item, mark: 'not_verified', detail: 'the signature was not checked' }
  return { ...item, mark: signature.ok ? 'verified' : 'not_verified', detail: signature.detail }
}

function evidenceItem(
  subject: 'registry_receipt' | 'log_inclusion' | 'witness_signatures',
  envelope: Record<string, unknown>,
  report: VerificationReport,
  unavailable: string,
): InspectionItem {
  const item = { subject, label: LABELS[subject] }
  const ran = report.checks.find((check) => check.name === subject)
  if (ran) {
    // Cosignatures by witnesses whose did:web documents the browser cannot read are unchecked, not wrong.
    const unreachable = !ran.ok && subject === 'witness_signatures' && ran.detail.includes(NETWORK_ONLY)
    if (unreachable) return { ...item, mark: 'not_available', detail: ran.detail }
    return { ...item, mark: ran.ok ? 'verified' : 'not_verified', detail: ran.detail }
  }
  const state = envelope['registry_state']
  const present =
    envelope[subject] !== undefined ||
    (typeof state === 'object' && state !== null && (state as Record<string, unknown>)[subject] !== undefined)
  // Evidence about a body or signature that failed vouches for nothing: it is not verified, whatever it says.
  const failedFirst = report.checks.find((check) => !check.ok)
  if (present && failedFirst !== undefined && !failedFirst.detail.includes(NETWORK_ONLY)) {
    return { ...item, mark: 'not_verified', detail: `not checked: ${failedFirst.name} failed first` }
  }
  return {
    ...item,
    mark: 'not_available',
    detail: present ? `present, but it cannot be checked here: ${unavailable}` : 'the registry attached none',
  }
}
