/**
 * RFC-ACDP-0014 §4–§6 `key-revocation` contexts: the metadata shape every 0.3.0 registry validates at
 * publish, the trust class, and the §5 step 2 not-self-signed rule.
 */
import { ProtocolError } from '../errors.js'
import { isSha256String } from '../hash/index.js'
import { computeKeyFingerprint, type PublicKeyMaterial } from '../keys/index.js'
import { MILLISECOND_TIMESTAMP_PATTERN } from '../wire/log.js'

/** The standard type and the pre-0.3.0 interim custom type consumers treat as equivalent (§10). */
export const KEY_REVOCATION_TYPES = ['key-revocation', 'acdp:key-revocation'] as const

const MILLISECOND_TIMESTAMP = new RegExp(MILLISECOND_TIMESTAMP_PATTERN)
const MAX_REASON_LENGTH = 1024

/** §2 trust classes; MUST be reported distinguishably (§6). */
export type RevocationTrustClass = 'producer-signed' | 'registry-attested'

/** A `key-revocation` body's statement, after the §4 shape checks. */
export interface KeyRevocation {
  /** `metadata.revoked_key_fingerprint` (RFC-ACDP-0010 §6 form) — authoritative over `revokedKeyId`. */
  readonly revokedKeyFingerprint: string
  /** `metadata.compromised_since`: the boundary T. */
  readonly compromisedSince: string
  readonly revokedKeyId?: string | undefined
  /** The producer DID controlling the revoked key (`revoked_key_controller`, defaulting to `agent_id`). */
  readonly controller: string
  readonly trustClass: RevocationTrustClass
}

/** The body members the checks read; a full context body or publish request satisfies it. */
export interface KeyRevocationBody {
  readonly type?: unknown
  readonly visibility?: unknown
  readonly agent_id?: unknown
  readonly metadata?: unknown
}

/**
 * RFC-ACDP-0014 §4 (and §6 for the registry-attested class): `type` is `key-revocation` (or the interim
 * `acdp:key-revocation`), `visibility` is `public`, `metadata.revoked_key_fingerprint` is a fingerprint,
 * `metadata.compromised_since` is canonical millisecond UTC, optional `revoked_key_id` / `reason` (≤ 1024)
 * are strings, and `revoked_key_controller` equals `agent_id` on producer-signed revocations and is present
 * on registry-attested ones (`agent_id` = `registryDid`).
 *
 * Throws ProtocolError `invalid_structure` with `details.reason`: `not_key_revocation`,
 * `visibility_not_public`, `agent_id_missing`, `metadata_missing`, `revoked_key_fingerprint_invalid`,
 * `compromised_since_invalid`, `revoked_key_id_invalid`, `reason_invalid`, `revoked_key_controller_missing`,
 * `revoked_key_controller_mismatch`. Registries answer all of them with `schema_violation`.
 */
export function parseKeyRevocation(body: KeyRevocationBody, options: { registryDid?: string } = {}): KeyRevocation {
  if (!(KEY_REVOCATION_TYPES as readonly unknown[]).includes(body.type))
    invalid('not_key_revocation', 'type is not key-revocation')
  if (body.visibility !== 'public') invalid('visibility_not_public', 'a key revocation must be public')
  if (typeof body.agent_id !== 'string') invalid('agent_id_missing', 'a key revocation needs agent_id')
  const metadata = body.metadata
  if (metadata === null || typeof metadata !== 'object' || Array.isArray(metadata)) {
    invalid('metadata_missing', 'a key revocation needs metadata')
  }
  const fields = metadata as Record<string, unknown>
  const fingerprint = fields['revoked_key_fingerprint']
  if (!isSha256String(fingerprint))
    invalid('revoked_key_fingerprint_invalid', 'metadata.revoked_key_fingerprint must be sha256:<hex>')
  const since = fields['compromised_since']
  if (typeof since !== 'string' || !MILLISECOND_TIMESTAMP.test(since) || !isRealInstant(since)) {
    invalid('compromised_since_invalid', 'metadata.compromised_since must be canonical millisecond RFC 3339 UTC')
  }
  const keyId = fields['revoked_key_id']
  if (keyId !== undefined && typeof keyId !== 'string')
    invalid('revoked_key_id_invalid', 'metadata.revoked_key_id must be a string')
  const reason = fields['reason']
  if (reason !== undefined && (typeof reason !== 'string' || reason.length > MAX_REASON_LENGTH)) {
    invalid('reason_invalid', `metadata.reason must be a string of at most ${MAX_REASON_LENGTH} characters`)
  }
  const controller = fields['revoked_key_controller']
  const trustClass: RevocationTrustClass =
    options.registryDid !== undefined && body.agent_id === options.registryDid ? 'registry-attested' : 'producer-signed'
  if (trustClass === 'registry-attested' && typeof controller !== 'string') {
    invalid('revoked_key_controller_missing', 'a registry-attested revocation must name revoked_key_controller')
  }
  if (trustClass === 'producer-signed' && controller !== undefined && controller !== body.agent_id) {
    invalid(
      'revoked_key_controller_mismatch',
      'revoked_key_controller must equal agent_id on a producer-signed revocation',
    )
  }
  return {
    revokedKeyFingerprint: fingerprint as string,
    compromisedSince: since,
    revokedKeyId: keyId,
    controller: (controller as string | undefined) ?? body.agent_id,
    trustClass,
  }
}

/**
 * RFC-ACDP-0014 §5 step 2: the key that signed the revocation must not be the key it revokes — possession of
 * a (by hypothesis stolen) key proves nothing. Throws ProtocolError `verification_failed`
 * (`revocation_self_signed`): registries reject the publish with `key_not_authorized`; consumers treat the
 * revocation as unverified and apply none of §7.
 */
export function assertRevocationNotSelfSigned(revocation: KeyRevocation, signingKey: PublicKeyMaterial): void {
  if (computeKeyFingerprint(signingKey) === revocation.revokedKeyFingerprint) {
    throw new ProtocolError('verification_failed', 'the revocation is signed by the key it revokes', {
      details: { reason: 'revocation_self_signed' },
    })
  }
}

function isRealInstant(timestamp: string): boolean {
  const ms = Date.parse(timestamp)
  return Number.isFinite(ms) && new Date(ms).toISOString() === timestamp
}

function invalid(reason: string, message: string): never {
  throw new ProtocolError('invalid_structure', message, { details: { reason } })
}
