/**
 * Producer side of publishing (RFC-ACDP-0001 §5.7–5.8, RFC-ACDP-0003 §2): turn producer content into a
 * signed publish request. Pure: no I/O, no clock.
 */
import { ProtocolError } from '../errors.js'
import { computeContentHash, extractProducerContent } from '../hash/content-hash.js'
import type { SignatureAlgorithm } from '../signature/algorithm.js'
import { signContentHash } from '../signature/content-signature.js'

/** Members a registry assigns; a publish request carrying them is refused (pub-013, pub-014). */
const REGISTRY_ASSIGNED = ['ctx_id', 'origin_registry', 'created_at'] as const

/** Input of {@link buildPublishRequest}. */
export interface BuildPublishRequestInput {
  /** Producer content: every body member the producer signs. `content_hash`/`signature`, if present, are replaced. */
  body: Record<string, unknown>
  algorithm: SignatureAlgorithm
  /** Ed25519: 32-byte seed; ECDSA P-256: 32-byte scalar. */
  privateKey: Uint8Array
  /** DID URL for `signature.key_id`; its DID portion must equal `body.agent_id` for a registry to accept it. */
  keyId: string
}

/** A signed publish request, ready to POST to /contexts. */
export type SignedPublishRequest = Record<string, unknown> & {
  content_hash: string
  signature: { algorithm: SignatureAlgorithm; key_id: string; value: string }
}

/**
 * Builds a signed publish request: `content_hash` = SHA-256 over JCS(ProducerContent) (§5.7, the exclusion set
 * removed by name), and `signature.value` = the key's signature over the ASCII bytes of that `content_hash`
 * string (§5.8). A supplied `lineage_id` (allowed from version 2) stays in the request and out of the hash.
 *
 * @throws ProtocolError `malformed_input` when `body` carries a registry-assigned member (`ctx_id`,
 *   `origin_registry`, `created_at`), which no registry accepts in a publish request.
 * @throws ProtocolError `not_canonicalizable` when the content has no JCS form (non-finite number, lone surrogate).
 * @throws ProtocolError `unsupported_algorithm` for an algorithm the library cannot sign with.
 * @throws TypeError when `body` is not an object or the private key has the wrong size.
 */
export function buildPublishRequest(input: BuildPublishRequestInput): SignedPublishRequest {
  const { body, algorithm, privateKey, keyId } = input
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    throw new TypeError('body must be a JSON object')
  const assigned = REGISTRY_ASSIGNED.filter((name) => Object.hasOwn(body, name))
  if (assigned.length > 0) {
    throw new ProtocolError(
      'malformed_input',
      `publish request must not carry registry-assigned ${assigned.join(', ')}`,
      {
        details: { reason: 'registry_assigned_member', members: assigned },
      },
    )
  }
  const request = extractProducerContent(body)
  const lineageId = body['lineage_id']
  if (lineageId !== undefined) request['lineage_id'] = lineageId
  const contentHash = computeContentHash(request)
  const value = signContentHash({ algorithm, privateKey, contentHash })
  return Object.assign(request, { content_hash: contentHash, signature: { algorithm, key_id: keyId, value } })
}
