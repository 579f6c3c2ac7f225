/**
 * Registries: the observed list, the enrollments (never a secret nor the read credential, only whether each is
 * set), and an enrolled registry's trust material as
 * relayed unverified for consumers that verify it themselves.
 */
import { Type } from 'typebox'
import { NullableString, Timestamp } from './common.js'

export const RegistryShape = Type.Object({
  authority: Type.String(),
  tenantId: Type.String(),
  baseUrl: NullableString,
  firstSeen: Timestamp,
  lastSeen: Timestamp,
  eventCount: Type.Integer(),
})

/** GET /registries. */
export const RegistryListShape = Type.Object({ data: Type.Array(RegistryShape), total: Type.Integer() })

export const EnrollmentShape = Type.Object({
  authority: Type.String(),
  tenantId: Type.String(),
  baseUrl: NullableString,
  registryDid: NullableString,
  enabled: Type.Boolean(),
  hasWebhookSecret: Type.Boolean(),
  previousWebhookSecretExpiresAt: Type.Union([Timestamp, Type.Null()], {
    description: 'during a webhook secret rotation, until when the previous secret is still accepted',
  }),
  hasReadCredential: Type.Boolean({
    description: 'whether the control plane reads this registry with a read credential (else anonymously)',
  }),
  createdAt: Timestamp,
  updatedAt: Timestamp,
})

/** GET /registries/enrollments. */
export const EnrollmentListShape = Type.Object({ data: Type.Array(EnrollmentShape), total: Type.Integer() })

/** GET /registries/:authority/capabilities: the registry's advertised profiles (its word, unverified). */
export const RegistryCapabilitiesShape = Type.Object({
  authority: Type.String(),
  registryDid: Type.Union([Type.String(), Type.Null()]),
  profiles: Type.Array(Type.String()),
})

/** GET /registries/:authority/did-document: the DID document text as served (the reader verifies it). */
export const RegistryDidDocumentShape = Type.Object({ did: Type.String(), document: Type.String() })

/** GET /registries/:authority/log-evidence: inclusion proof and cosignatures as served (the reader verifies them). */
export const LogEvidenceShape = Type.Object({
  log_inclusion: Type.Unknown(),
  witness_signatures: Type.Union([Type.Array(Type.Unknown()), Type.Null()]),
})
