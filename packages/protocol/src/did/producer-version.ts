/**
 * RFC-ACDP-0001 §5.4 and §6: which producer DID methods a body's declared version admits. `did:key` producers
 * arrived in acdp/0.2.0, whose producers MUST declare `acdp_version`; a body that omits it is read as 0.1.0,
 * where `agent_id` MUST be `did:web` (and the §5.11 strict profile rejects anything else). Registries and
 * verifiers share this rule so a registry never accepts a body every strict consumer refuses (pub-008).
 */
import { compareAcdpVersions } from '../wire/capabilities.js'

/** True when `acdp_version` (absent means `"0.1.0"`) predates did:key producers, i.e. is below 0.2.0. */
export function isDidWebOnlyVersion(acdpVersion: string | undefined): boolean {
  return compareAcdpVersions(acdpVersion ?? '0.1.0', '0.2.0') < 0
}
