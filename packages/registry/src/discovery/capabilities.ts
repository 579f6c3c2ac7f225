/**
 * The capabilities document (RFC-ACDP-0007 §3) served at `/.well-known/acdp.json`. It is derived once from the
 * frozen configuration and states exactly what this process does: the profiles that are on, the DID methods
 * and algorithms it verifies, its limits, and how readers authenticate.
 */
import type { CapabilitiesDocument } from '@acdp/protocol'
import type { RegistryConfig } from '../core/config.js'
import { SUPPORTED_SIGNATURE_ALGORITHMS } from '../publish/producer-signature.js'
import { MAX_EMBEDDED_BYTES } from '../publish/publish-checks.js'
import { registryDidOf } from '../core/registry-did.js'

/** The protocol version this registry implements (product spec "Versioning"). */
export const ACDP_VERSION = '0.5.0'

/**
 * `registry.profiles`, plus the profiles of features that are on however the list was given: federated exactly
 * when `registry.cross_registry_resolution` (origins are bound to their authority and their evidence verified,
 * RFC-ACDP-0006 §4.1 step 3), lifecycle exactly when `lifecycle.enabled` (RFC-ACDP-0013 §10).
 */
export function advertisedProfiles(config: RegistryConfig): string[] {
  const profiles = [...config.registry.profiles]
  if (config.registry.cross_registry_resolution && !profiles.includes('acdp-registry-federated'))
    profiles.push('acdp-registry-federated')
  if (config.lifecycle.enabled && !profiles.includes('acdp-registry-lifecycle'))
    profiles.push('acdp-registry-lifecycle')
  return profiles
}

/**
 * Builds the document. `anonymous_public_reads` is the effective policy: with authentication off every reader is
 * anonymous, so it equals `auth.anonymous_public_reads`; `read_authentication_methods` is advertised only when
 * bearer authentication is on (product spec "Endpoints"). Idempotency is always supported (REQUIRED at ≥ 0.3.0).
 */
export function buildCapabilitiesDocument(
  config: RegistryConfig,
  options: { publishRateLimited?: boolean } = {},
): CapabilitiesDocument {
  const document: CapabilitiesDocument = {
    acdp_version: ACDP_VERSION,
    registry_did: registryDidOf(config.registry.authority),
    supported_signature_algorithms: [...SUPPORTED_SIGNATURE_ALGORITHMS],
    supported_did_methods: [...config.auth.did_methods],
    profiles: advertisedProfiles(config),
    supports_idempotency_key: true,
    anonymous_public_reads: config.auth.anonymous_public_reads,
    limits: {
      max_payload_bytes: config.limits.max_payload_bytes,
      max_embedded_bytes: MAX_EMBEDDED_BYTES,
      idempotency_key_ttl_seconds: config.limits.idempotency_key_ttl_seconds,
    },
  }
  if (config.auth.enabled) document.read_authentication_methods = ['bearer_jwt']
  // Advertised only when the per-agent limiter actually runs (never a claim this process does not keep).
  if (options.publishRateLimited && config.limits.publish_rate_per_minute > 0) {
    document.limits.max_publish_per_minute = config.limits.publish_rate_per_minute
  }
  return document
}
