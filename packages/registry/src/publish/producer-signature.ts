/**
 * Steps 5–7 of RFC-ACDP-0003 §2.1: algorithm check, key resolution (RFC-ACDP-0001 §5.11, did:web through the
 * SSRF-safe outbound client, did:key locally) and strict signature verification over the ASCII content_hash.
 * Every protocol failure is translated to its wire code here, once.
 */
import {
  isProtocolError,
  isSignatureAlgorithm,
  type ResolvedKey,
  SIGNATURE_ALGORITHMS,
  verifyContentSignatureAsync,
} from '@acdp/protocol'
import type { KeyResolver } from '../core/deps.js'
import { fromProtocolError, RegistryError } from '../core/errors.js'

/** Algorithms advertised in `supported_signature_algorithms` (ed25519 mandatory, ecdsa-p256 optional). */
export const SUPPORTED_SIGNATURE_ALGORITHMS: readonly string[] = SIGNATURE_ALGORITHMS

export interface SignatureToVerify {
  algorithm: string
  key_id: string
  value: string
}

/**
 * Verifies `signature` over `contentHash` (already recomputed and compared by the caller) and returns the
 * resolved key. A did:web signature that fails is retried once against a freshly fetched document, because the
 * producer may have rotated keys (§5.11 caching); the resolver rate-limits such refetches per DID.
 *
 * @throws RegistryError unsupported_algorithm | key_resolution_failed | key_resolution_unreachable |
 *   key_not_authorized | invalid_signature
 */
export async function verifyProducerSignature(
  resolver: KeyResolver,
  signature: SignatureToVerify,
  contentHash: string,
): Promise<ResolvedKey> {
  if (!isSignatureAlgorithm(signature.algorithm)) {
    throw new RegistryError('unsupported_algorithm', 'The signature algorithm is not supported by this registry.', {
      details: { algorithm: signature.algorithm, supported: [...SUPPORTED_SIGNATURE_ALGORITHMS] },
    })
  }
  let key = await resolveSigningKey(resolver, signature.key_id, false)
  if (await checkSignature(key, signature, contentHash)) return key
  if (signature.key_id.startsWith('did:web:')) {
    key = await resolveSigningKey(resolver, signature.key_id, true)
    if (await checkSignature(key, signature, contentHash)) return key
  }
  throw invalidSignature(signature)
}

async function resolveSigningKey(resolver: KeyResolver, keyId: string, forceRefresh: boolean): Promise<ResolvedKey> {
  try {
    return await resolver.resolveKey(keyId, { forceRefresh })
  } catch (error) {
    throw translateResolutionError(error, keyId)
  }
}

/**
 * Algorithm binding (RFC-ACDP-0008 §3.9 downgrade defence) then cryptographic verification; Ed25519 (the
 * mandatory algorithm, nearly every publish) verifies on libuv's thread pool, off the event loop.
 */
async function checkSignature(key: ResolvedKey, signature: SignatureToVerify, contentHash: string): Promise<boolean> {
  if (key.algorithm !== signature.algorithm) throw invalidSignature(signature)
  try {
    return await verifyContentSignatureAsync({
      algorithm: signature.algorithm,
      publicKey: key.publicKey,
      contentHash,
      signature: signature.value,
    })
  } catch (error) {
    // Wrong length or not canonical base64: RFC-ACDP-0001 §5.8 answers invalid_signature.
    if (isProtocolError(error) && error.code === 'invalid_signature_encoding') throw invalidSignature(signature, error)
    throw fromProtocolError(error)
  }
}

function invalidSignature(signature: SignatureToVerify, cause?: unknown): RegistryError {
  return new RegistryError('invalid_signature', 'The signature does not verify under the resolved key.', {
    details: { key_id: signature.key_id, algorithm: signature.algorithm },
    cause,
  })
}

/**
 * Key-resolution failures (RFC-ACDP-0003 §2.1 step 6): the VM not in assertionMethod is key_not_authorized (403),
 * a VM type that does not fit the algorithm is invalid_signature, an unaccepted DID method names the method
 * (dk-003), transient fetch failures are 502, everything else permanent 400.
 */
export function translateResolutionError(error: unknown, keyId: string): RegistryError {
  if (!isProtocolError(error)) return fromProtocolError(error)
  const reason = typeof error.details?.reason === 'string' ? error.details.reason : undefined
  if (error.code === 'key_resolution_unreachable') {
    return new RegistryError('key_resolution_unreachable', 'The DID document could not be fetched; retry later.', {
      details: { key_id: keyId, ...(reason ? { underlying: reason } : {}) },
      cause: error,
    })
  }
  if (reason === 'not_in_assertion_method') {
    return new RegistryError('key_not_authorized', 'The signing key is not authorized by assertionMethod.', {
      details: { key_id: keyId },
      cause: error,
    })
  }
  if (reason === 'not_pinned') {
    // playground.pinned_only: the agent has no pinned key valid now (auth/pinned-keys.ts).
    return new RegistryError('key_not_authorized', 'No pinned key of this agent is valid now.', {
      details: { key_id: keyId },
      cause: error,
    })
  }
  if (reason === 'key_type_mismatch') {
    return new RegistryError('invalid_signature', 'The verification method does not fit the signature algorithm.', {
      details: { key_id: keyId },
      cause: error,
    })
  }
  if (reason === 'unsupported_did_method') {
    const method = typeof error.details?.method === 'string' ? `did:${error.details.method}` : undefined
    return new RegistryError('key_resolution_failed', 'The DID method is not supported by this registry.', {
      details: { key_id: keyId, ...(method ? { did_method: method } : {}) },
      cause: error,
    })
  }
  if (error.code === 'key_resolution_failed' || error.code === 'invalid_did' || error.code === 'invalid_public_key') {
    return new RegistryError('key_resolution_failed', 'The signing key could not be resolved.', {
      details: { key_id: keyId, ...(reason ? { underlying: reason } : {}) },
      cause: error,
    })
  }
  return fromProtocolError(error)
}
