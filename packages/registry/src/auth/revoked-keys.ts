/**
 * RFC-ACDP-0014 at the registry: a key its producer declared compromised since T signs nothing accepted at or
 * after T. Applied to every publish (the registry-assigned `created_at` is the publish instant, §7 step 3) and
 * to every producer lifecycle event. Revocations are ordinary stored `key-revocation` contexts: producer-signed
 * ones (signer = the producer) and registry-attested ones this registry published (signer = its own DID,
 * `revoked_key_controller` = the producer, §6). A stored revocation that fails the §4 shape (only possible for
 * data written before the check existed) is ignored rather than trusted.
 */
import { hasSoleWriter } from '@acdp/storage'
import { computeKeyFingerprint, isProtocolError, parseKeyRevocation, type PublicKeyMaterial } from '@acdp/protocol'
import type { RegistryStore } from '../store/store.js'
import { RegistryError } from '../core/errors.js'

/**
 * Which DIDs have ever signed a `key-revocation` here, so the common publish (a signer with no revocation) skips
 * the lookup. Exact only when this process is the store's single writer (SQLite): the set is loaded at startup
 * and grows with every accepted revocation. On a shared store (PostgreSQL) another instance may accept a
 * revocation at any time, so there it answers "maybe" for everyone and the lookup always runs.
 */
export class RevocationSigners {
  readonly #exact: boolean
  readonly #signers = new Set<string>()

  private constructor(exact: boolean) {
    this.#exact = exact
  }

  /** Loads the signers of stored revocations (sole writer) or makes an always-"maybe" filter (shared store). */
  static async load(store: Pick<RegistryStore, 'kind' | 'listKeyRevocationSigners'>): Promise<RevocationSigners> {
    const filter = new RevocationSigners(hasSoleWriter(store.kind))
    if (filter.#exact) for (const did of await store.listKeyRevocationSigners()) filter.#signers.add(did)
    return filter
  }

  /** False only when none of `dids` can have signed a revocation stored here. */
  mayHaveRevoked(dids: readonly string[]): boolean {
    return !this.#exact || dids.some((did) => this.#signers.has(did))
  }

  /** Records the signer of a just-stored revocation. */
  add(did: string): void {
    this.#signers.add(did)
  }
}

export interface RevokedKeyQuery {
  /** The DID the key signs for (`agent_id`, or a lifecycle event's `actor`). */
  agentId: string
  /** The resolved key that verified the signature. */
  key: PublicKeyMaterial
  /** The instant the signature is being accepted (epoch ms). */
  atMs: number
  /** This registry's DID: revocations it signed are registry-attested. */
  registryDid: string
}

/** The revocation in force against the key at `atMs` (earliest boundary first), or undefined. */
export async function findRevocationInForce(
  store: Pick<RegistryStore, 'listKeyRevocations'>,
  query: RevokedKeyQuery,
  filter?: RevocationSigners,
): Promise<{ ctxId: string; compromisedSince: string } | undefined> {
  const signers = query.agentId === query.registryDid ? [query.agentId] : [query.agentId, query.registryDid]
  if (filter && !filter.mayHaveRevoked(signers)) return undefined
  const stored = await store.listKeyRevocations(signers)
  if (stored.length === 0) return undefined
  const fingerprint = computeKeyFingerprint(query.key)
  let found: { ctxId: string; compromisedSince: string; ms: number } | undefined
  for (const row of stored) {
    let revocation
    try {
      revocation = parseKeyRevocation(JSON.parse(row.bodyText) as Record<string, unknown>, {
        registryDid: query.registryDid,
      })
    } catch (error) {
      if (isProtocolError(error) || error instanceof SyntaxError) continue
      throw error
    }
    if (revocation.controller !== query.agentId || revocation.revokedKeyFingerprint !== fingerprint) continue
    const ms = Date.parse(revocation.compromisedSince)
    // §7 step 3: at or after T fails closed.
    if (ms > query.atMs) continue
    if (found === undefined || ms < found.ms)
      found = { ctxId: row.ctxId, compromisedSince: revocation.compromisedSince, ms }
  }
  return found === undefined ? undefined : { ctxId: found.ctxId, compromisedSince: found.compromisedSince }
}

/**
 * Refuses a signature made with a key revoked at or before `atMs`.
 *
 * @throws RegistryError key_not_authorized (details: reason `key_revoked`, the revocation's ctx_id and boundary)
 */
export async function assertKeyNotRevoked(
  store: Pick<RegistryStore, 'listKeyRevocations'>,
  query: RevokedKeyQuery,
  filter?: RevocationSigners,
): Promise<void> {
  const revocation = await findRevocationInForce(store, query, filter)
  if (revocation === undefined) return
  throw new RegistryError('key_not_authorized', 'The signing key was revoked by its producer before this instant.', {
    details: {
      reason: 'key_revoked',
      revocation_ctx_id: revocation.ctxId,
      compromised_since: revocation.compromisedSince,
    },
  })
}
