/**
 * What a registry's advertised profiles (RFC-ACDP-0007 §3 `profiles`, RFC-ACDP-0001 §9.1) call for, so a
 * verification summary says "verified" for a context whose registry never promised a receipt or a log, and
 * still names a receipt that a receipts registry failed to attach. Evidence a registry does not promise is
 * reported `not_available` with `called_for: false`; when the profiles are unknown every evidence stage is
 * treated as called for (absence of the capabilities document proves nothing) and the summary says so.
 */
import { parseJsonStrict } from '../jcs/parse-json-strict.js'
import { registryEndpoint, type SdkRequestOptions, sendRegistryRequest } from './registry-http.js'
import type { VerificationStage } from './verification-stage.js'

/** The registry's advertised profiles, or why they are not known. */
export type RegistryProfiles = { known: true; profiles: string[] } | { known: false; reason: string }

/**
 * The registry profile that promises each evidence stage (registries/profiles.md). `null`: no registry profile
 * promises it — witness cosignatures are an ecosystem overlay a registry may aggregate but never commits to
 * (RFC-ACDP-0015 §10).
 */
export const EVIDENCE_PROFILES: Readonly<Record<string, string | null>> = {
  registry_receipt: 'acdp-registry-receipts',
  lineage_head_receipt: 'acdp-registry-head-receipts',
  log_inclusion: 'acdp-registry-transparency-log',
  witness_signatures: null,
}

/**
 * Reads `profiles` from a capabilities document (attacker-controlled): an array of strings, else unknown.
 */
export function readAdvertisedProfiles(document: unknown): RegistryProfiles {
  if (typeof document !== 'object' || document === null || Array.isArray(document)) {
    return { known: false, reason: 'the capabilities document is not an object' }
  }
  const profiles = (document as Record<string, unknown>)['profiles']
  if (!Array.isArray(profiles) || !profiles.every((profile) => typeof profile === 'string')) {
    return { known: false, reason: 'the capabilities document has no profiles array of strings' }
  }
  return { known: true, profiles: [...profiles] }
}

/**
 * Fetches `GET /.well-known/acdp.json` from `registryUrl` and reads its profiles. Never throws for a failed
 * fetch or a bad answer: the result is then `known: false` with the reason (the caller passes it on to
 * {@link verifyContext} as `registryProfiles`, which says so in the summary).
 */
export async function fetchRegistryProfiles(
  registryUrl: string,
  options: SdkRequestOptions = {},
): Promise<RegistryProfiles> {
  const url = registryEndpoint(registryUrl, '/.well-known/acdp.json')
  let text: string
  try {
    const response = await sendRegistryRequest(url, { headers: { accept: 'application/json' } }, options)
    if (response.status !== 200) return { known: false, reason: `${url} answered HTTP ${response.status}` }
    text = response.text
  } catch (error) {
    return { known: false, reason: `${url} could not be read (${(error as Error).message})` }
  }
  let document: unknown
  try {
    document = parseJsonStrict(text)
  } catch {
    return { known: false, reason: `${url} answered a body that is not strict JSON` }
  }
  return readAdvertisedProfiles(document)
}

/**
 * Marks every stage with `called_for`. An evidence stage whose profile the registry does not advertise is not
 * called for; when it is also not available its reason says which profile is missing. Every other stage (the
 * body stages, key revocation, DataRefs…) is called for by the context itself.
 */
export function applyProfiles(
  stages: readonly VerificationStage[],
  profiles: RegistryProfiles | undefined,
): VerificationStage[] {
  return stages.map((stage) => {
    if (!(stage.name in EVIDENCE_PROFILES) || profiles === undefined || !profiles.known) {
      return { ...stage, called_for: true }
    }
    const profile = EVIDENCE_PROFILES[stage.name] ?? null
    if (profile !== null && profiles.profiles.includes(profile)) return { ...stage, called_for: true }
    if (stage.state !== 'not_available') return { ...stage, called_for: false }
    const reason =
      profile === null
        ? 'no registry profile calls for witness cosignatures (RFC-ACDP-0015 §10) and none were served'
        : `the registry does not advertise ${profile}`
    return { ...stage, called_for: false, reason }
  })
}
