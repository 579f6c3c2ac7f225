/**
 * Registries: the observed list, the enrollments (never a secret nor the read credential, only whether each is
 * set), and an enrolled registry's trust material as
 * relayed unverified for consumers that verify it themselves.
 */
import { type Static, Type } from 'typebox'
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
export const RegistryDidDocumentShape = Type.Object({
  did: Type.String(),
  // The document exactly as the registry served it (UTF-8 text); the reader parses and verifies it.
  document: Type.String(),
})

/** GET /registries/:authority/log-evidence: inclusion proof and cosignatures as served (the reader verifies them). */
export const LogEvidenceShape = Type.Object({
  // Inclusion-mode `/log/proof` body, or null when the registry has no log or did not log this context.
  log_inclusion: Type.Unknown(),
  // Cosignatures the registry aggregated for the checkpoint the proof is under, or null.
  witness_signatures: Type.Union([Type.Array(Type.Unknown()), Type.Null()]),
})

/**
 * Bytes of a registry probe's answer kept in GET /registries/:authority/health: a probe body is a handful of
 * members; anything larger is not a probe answer worth showing, and is dropped.
 */
export const MAX_KEPT_BODY_BYTES = 4096

export const RegistryProbeShape = Type.Object({
  status: Type.Union(
    [Type.Literal('ok'), Type.Literal('failing'), Type.Literal('not_served'), Type.Literal('unreachable')],
    {
      description:
        'ok: 2xx; failing: another status; not_served: 404 (the registry has no such probe); unreachable: ' +
        'refused by the outbound policy, transport failure, deadline or oversized body',
    },
  ),
  httpStatus: Type.Union([Type.Integer(), Type.Null()], { description: 'null when the registry was not reached' }),
  body: Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()], {
    description: `the answer when it is a JSON object of at most ${MAX_KEPT_BODY_BYTES} bytes, else null`,
  }),
  error: Type.Union([Type.String(), Type.Null()], {
    description: 'the outbound failure category when unreachable (e.g. loopback, outbound_failed), else null',
  }),
})

/** GET /registries/:authority/health: the registry's /healthz and /readyz, asked now by the control plane. */
export const RegistryHealthShape = Type.Object({
  authority: Type.String(),
  health: RegistryProbeShape,
  readiness: RegistryProbeShape,
  checkedAt: Timestamp,
})

export type RegistryCapabilities = Static<typeof RegistryCapabilitiesShape>
export type RegistryDidDocument = Static<typeof RegistryDidDocumentShape>
export type LogEvidence = Static<typeof LogEvidenceShape>
/** GET /registries/:authority/health. */
export type RegistryHealth = Static<typeof RegistryHealthShape>

/** An enrollment on the wire: never the secret, only whether one is set. */
export type EnrollmentView = Static<typeof EnrollmentShape>
