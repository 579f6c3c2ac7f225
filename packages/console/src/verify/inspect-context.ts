/**
 * The context inspector's verdicts, computed IN THE BROWSER with @acdp/protocol's own verification code (no
 * server-side "trust me"): the envelope comes from the control plane's federation proxy exactly as the registry
 * served it, and every mark below is derived from `verifyContext`'s stage report.
 *
 * Marks: `verified` (the check ran and passed), `not_verified` (it ran and failed, or could not run because an
 * earlier stage failed), `not_available` (nothing to check, or the evidence cannot be checked from a browser).
 */
import {
  type KeyResolver,
  parseDidKey,
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

/**
 * Resolves did:key identifiers purely (the key is the identifier). did:web documents live on the producer's web
 * server, which a browser on the console's origin may not contact (strict CSP `connect-src 'self'`), so those
 * keys are reported as unavailable rather than guessed.
 */
export const browserKeyResolver: KeyResolver = {
  async resolveKey(keyId: string): Promise<ResolvedKey> {
    const { did } = splitKeyId(keyId)
    if (!did.startsWith('did:key:')) throw new DidWebUnavailable(did)
    return { ...parseDidKey(did), did, keyId }
  },
}

class DidWebUnavailable extends Error {
  constructor(did: string) {
    super(`${did} is resolved over the network; the console verifies did:key producers in the browser`)
  }
}

/** Inspects a retrieval envelope `{ body, registry_state, … }` (attacker-controlled; never throws for bad data). */
export async function inspectContext(envelope: unknown): Promise<Inspection> {
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
  const record = envelope as Record<string, unknown>
  const report = await verifyContext(record, { resolver: browserKeyResolver })
  return {
    report,
    items: [
      bodyItem(report.checks),
      signatureItem(report.checks),
      ...(['registry_receipt', 'log_inclusion', 'witness_signatures'] as const).map((subject) =>
        evidenceItem(subject, record, report),
      ),
    ],
  }
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
    const unavailable = resolution.detail.includes('resolved over the network')
    return { ...item, mark: unavailable ? 'not_available' : 'not_verified', detail: resolution.detail }
  }
  if (signature === undefined) return { ...item, mark: 'not_verified', detail: 'the signature was not checked' }
  return { ...item, mark: signature.ok ? 'verified' : 'not_verified', detail: signature.detail }
}

function evidenceItem(
  subject: 'registry_receipt' | 'log_inclusion' | 'witness_signatures',
  envelope: Record<string, unknown>,
  report: VerificationReport,
): InspectionItem {
  const item = { subject, label: LABELS[subject] }
  const ran = report.checks.find((check) => check.name === subject)
  if (ran) return { ...item, mark: ran.ok ? 'verified' : 'not_verified', detail: ran.detail }
  const state = envelope['registry_state']
  const present =
    envelope[subject] !== undefined ||
    (typeof state === 'object' && state !== null && (state as Record<string, unknown>)[subject] !== undefined)
  return {
    ...item,
    mark: 'not_available',
    detail: present
      ? "present, but the registry's signing key is not served to the console, so it cannot be checked here"
      : 'the registry attached none',
  }
}
