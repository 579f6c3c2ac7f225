/**
 * Who cosigned a witnessed checkpoint, and how each cosignature stands against our quorum policy: the list the
 * operator sees beside the quorum verdict (docs/control-plane/witness.md "Cosigners"). Pure: the verification
 * itself is `countWitnesses` (RFC-ACDP-0015 §8); this names each cosignature's outcome.
 *
 * | standing    | meaning                                                                               |
 * | ----------- | ------------------------------------------------------------------------------------- |
 * | `counted`   | a trusted witness with a valid cosignature over the exact tuple: counts toward quorum |
 * | `invalid`   | fails §8 (shape, key binding, tuple, signature, `witnessed_at` skew)                   |
 * | `untrusted` | passes the checks made before trust, but its witness is not in WITNESS_QUORUM_TRUSTED |
 * | `unchecked` | quorum consumption is off: nothing was verified, the name is as the registry served it |
 * | `own`       | names our own WITNESS_ID: never counts (only external attestations make a quorum)     |
 */
import type { ProtocolError } from '@acdp/protocol'
import { type CosignerRecord, type CosignerStanding, MAX_STORED_COSIGNERS } from './witness-store.js'

/** Longest cosigner name kept (a DID is far shorter; an attacker-sized string is cut, marked with "…"). */
export const MAX_COSIGNER_NAME_LENGTH = 256

/** Keeping order when the list is over the cap: what the quorum rests on first, then what explains a shortfall. */
const KEEP_ORDER: Record<CosignerStanding, number> = { counted: 0, own: 1, untrusted: 2, invalid: 3, unchecked: 4 }

/** What `countWitnesses` concluded for the considered cosignatures; undefined when quorum consumption is off. */
export interface CosignatureVerdicts {
  failures: readonly { index: number; error: ProtocolError }[]
}

/**
 * One entry per distinct (name, standing), counted cosigners first, at most {@link MAX_STORED_COSIGNERS}.
 * `signatures` are the cosignatures considered (already bounded by the caller), `verdicts` their §8 outcome.
 */
export function describeCosigners(
  signatures: readonly unknown[],
  verdicts: CosignatureVerdicts | undefined,
  ownWitnessId: string | undefined,
): CosignerRecord[] {
  const failed = new Map(verdicts?.failures.map((f) => [f.index, f.error]) ?? [])
  const seen = new Set<string>()
  const out: CosignerRecord[] = []
  for (const [index, signature] of signatures.entries()) {
    const name = cosignerName(signature)
    const standing = standingOf(name, verdicts === undefined ? undefined : failed.get(index), verdicts, ownWitnessId)
    const key = `${standing} ${name ?? ''}`
    if (seen.has(key)) continue // one witness cosigning twice is one cosigner (and counts once, §8)
    seen.add(key)
    out.push({ name, standing })
  }
  // A stable sort: within a standing, the registry's order is kept.
  return out.sort((a, b) => KEEP_ORDER[a.standing] - KEEP_ORDER[b.standing]).slice(0, MAX_STORED_COSIGNERS)
}

function standingOf(
  name: string | null,
  failure: ProtocolError | undefined,
  verdicts: CosignatureVerdicts | undefined,
  ownWitnessId: string | undefined,
): CosignerStanding {
  const isOwn = ownWitnessId !== undefined && name === ownWitnessId
  if (verdicts === undefined) return isOwn ? 'own' : 'unchecked'
  if (failure === undefined) return 'counted'
  // The trust check comes after the shape and key-binding checks, so `witness_not_trusted` is "valid-looking".
  const notTrusted = failure.details?.['reason'] === 'witness_not_trusted'
  // The policy never trusts our own id; one that fails for any other reason is a forgery under our name.
  if (notTrusted) return isOwn ? 'own' : 'untrusted'
  return 'invalid'
}

/** The witness the cosignature names: `witness_id`, else the DID of `signature.key_id`, else null. */
function cosignerName(signature: unknown): string | null {
  if (typeof signature !== 'object' || signature === null) return null
  const witnessId = (signature as Record<string, unknown>)['witness_id']
  if (typeof witnessId === 'string' && witnessId !== '') return bounded(witnessId)
  const inner = (signature as Record<string, unknown>)['signature']
  if (typeof inner !== 'object' || inner === null) return null
  const keyId = (inner as Record<string, unknown>)['key_id']
  if (typeof keyId !== 'string' || keyId === '') return null
  return bounded(keyId.split('#')[0] || keyId)
}

function bounded(name: string): string {
  return name.length <= MAX_COSIGNER_NAME_LENGTH ? name : `${name.slice(0, MAX_COSIGNER_NAME_LENGTH - 1)}…`
}
