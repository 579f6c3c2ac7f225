/**
 * Authentication of the HMAC routes (POST /ingest/acdp, POST /runs/started, POST /runs/:runId/complete;
 * product spec "Ingest request headers" and "Authentication" rule 5) and the tenant of a delivery.
 *
 * Secret choice (the claimed authority picks it, so it must never let a sender pick a weaker one):
 * - enrolled authority with its own secret → only that secret (the global one is refused), plus, during a
 *   rotation, the enrollment's previous secret until it expires or is dropped;
 * - enrolled authority without one, or an authority that is not enrolled → WEBHOOK_SECRET, plus
 *   WEBHOOK_SECRET_PREVIOUS while it is configured;
 * - WEBHOOK_SECRET empty → verification skipped (configuration allows that only in development).
 * Every accepted secret is checked (no early exit), each comparison in constant time, so the timing does not say
 * which of the two matched.
 *
 * What the secret proves: an enrollment's own secret is held by that registry alone, so a delivery it verifies
 * speaks for that enrollment's authority and tenant only. The global secret is shared by every registry without
 * one, so whoever holds it can claim any such authority; ingest's authority binding (ctx_id ↔ authority) is then
 * only as strong as that secret is private.
 *
 * Tenant: the enrollment's; else, for an unenrolled sender, X-Tenant-Id (or `default` without one) when
 * X-ACDP-Signature-V2 covers it, or under INGEST_STRICT_TENANT (always `default`), or when the operator accepts
 * the plain scheme (INGEST_ALLOW_UNSIGNED_TENANT, off in production): an unsigned header is what a replayer sends.
 *
 * The signature is checked BEFORE any enrollment or tenant refusal, so an unsigned caller cannot learn
 * whether an authority is enrolled, disabled or bound to a tenant (403s are reserved for valid senders).
 */
import { verifyTimestampedWebhook, verifyWebhookSignature, verifyWebhookV2 } from '@acdp/protocol'
import { readTenantHeader } from '../auth/tenant.js'
import { type ControlPlaneConfig, DEFAULT_TENANT } from '../core/config.js'
import { ControlPlaneError } from '../core/errors.js'
import type { EnrollmentDirectory, ResolvedEnrollment } from '../registries/enrollment-directory.js'

/** The webhook headers a delivery may carry (all attacker-controlled). */
export interface DeliveryHeaders {
  /** X-ACDP-Signature: `sha256=<hex>` over the raw body. */
  signature: string | undefined
  /** X-ACDP-Timestamp: unix seconds. */
  timestamp: string | undefined
  /** X-ACDP-Signature-Timestamped: `sha256=<hex>` over `"<ts>." ‖ raw body`. */
  signatureTimestamped: string | undefined
  /** X-ACDP-Signature-V2: `sha256=<hex>` over the timestamp, the three headers below and the body. */
  signatureV2: string | undefined
  /** X-Tenant-Id. */
  tenantId: string | string[] | undefined
  /** X-ACDP-Event-Id: delivery id; informational (idempotency comes from the body alone). */
  eventId?: string | undefined
  /** X-Run-Id: correlates the event into a run; beats the payload's run_id. */
  runId?: string | undefined
}

/** An authenticated delivery. */
export interface AuthenticatedDelivery {
  tenantId: string
  enrollment: ResolvedEnrollment | undefined
  /** True when the HMAC was checked; false only where no secret applies (development, verification skipped). */
  isSignatureVerified: boolean
}

/**
 * Verifies a delivery and resolves its tenant.
 *
 * @param claimedAuthority the (lowercase) authority the body claims, or undefined when it names none.
 * @param rawBody attacker-controlled: the exact body bytes.
 * @throws ControlPlaneError INVALID_SIGNATURE (401), REGISTRY_DISABLED / REGISTRY_NOT_ENROLLED /
 *   TENANT_RESERVED / TENANT_MISMATCH / TENANT_HEADER_UNTRUSTED / TENANT_REQUIRED (403),
 *   VALIDATION_ERROR (400) for a malformed X-Tenant-Id.
 */
export async function authenticateDelivery(
  options: {
    ingest: ControlPlaneConfig['ingest']
    requireTenant: boolean
    enrollments: EnrollmentDirectory
    nowSeconds: number
  },
  claimedAuthority: string | undefined,
  rawBody: Buffer,
  headers: DeliveryHeaders,
): Promise<AuthenticatedDelivery> {
  const { ingest, enrollments } = options
  const enrollment = claimedAuthority === undefined ? undefined : await enrollments.get(claimedAuthority)
  const secrets = acceptedSecrets(enrollment, ingest, options.nowSeconds)
  const form = secrets.length > 0 ? signedFormOfAny(secrets, rawBody, headers, ingest, options.nowSeconds) : 'none'
  if (form === 'invalid') throw new ControlPlaneError('INVALID_SIGNATURE', 'missing or invalid webhook signature')
  const areHeadersSigned = form === 'v2'
  if (enrollment !== undefined && !enrollment.enabled) {
    throw new ControlPlaneError('REGISTRY_DISABLED', 'ingest from this registry is disabled')
  }
  if (enrollment === undefined && ingest.requireEnrollment) {
    throw new ControlPlaneError('REGISTRY_NOT_ENROLLED', 'this registry is not enrolled')
  }
  const header = readTenantHeader(headers.tenantId)
  if (header === DEFAULT_TENANT)
    throw new ControlPlaneError('TENANT_RESERVED', 'the tenant "default" cannot be asserted')
  let tenantId: string
  if (enrollment !== undefined) {
    if (header !== undefined && header !== enrollment.tenantId) {
      throw new ControlPlaneError('TENANT_MISMATCH', 'X-Tenant-Id does not match the tenant of the enrollment')
    }
    tenantId = enrollment.tenantId
  } else {
    if (header !== undefined && ingest.strictTenant) {
      throw new ControlPlaneError('TENANT_HEADER_UNTRUSTED', 'an unenrolled registry cannot assert a tenant')
    }
    // Outside the MAC, X-Tenant-Id (and its absence) is whatever a replayer makes of it: a captured V2 delivery
    // for tenant a, stripped to its timestamped signature without the header, would land in `default` as well.
    // So an unenrolled sender's tenant binding must be signed, unless strict tenants pin it to `default` or the
    // operator accepts the product spec's plain scheme (INGEST_ALLOW_UNSIGNED_TENANT, off in production).
    if (!areHeadersSigned && !ingest.strictTenant && !ingest.allowUnsignedTenant) {
      throw new ControlPlaneError(
        'TENANT_HEADER_UNTRUSTED',
        'an unenrolled registry must sign its tenant binding with X-ACDP-Signature-V2',
      )
    }
    tenantId = header ?? DEFAULT_TENANT
  }
  if (options.requireTenant && tenantId === DEFAULT_TENANT) {
    throw new ControlPlaneError('TENANT_REQUIRED', 'a tenant is required (enroll the registry or send X-Tenant-Id)')
  }
  return { tenantId, enrollment, isSignatureVerified: secrets.length > 0 }
}

/** The secrets a delivery may be signed with (see the module comment); empty when verification is skipped. */
function acceptedSecrets(
  enrollment: ResolvedEnrollment | undefined,
  ingest: ControlPlaneConfig['ingest'],
  nowSeconds: number,
): string[] {
  if (enrollment?.webhookSecret !== undefined) {
    const previous = enrollment.previousWebhookSecret
    return previous !== undefined && previous.expiresAt > nowSeconds * 1000
      ? [enrollment.webhookSecret, previous.secret]
      : [enrollment.webhookSecret]
  }
  if (ingest.webhookSecret === '') return []
  return ingest.webhookSecretPrevious === ''
    ? [ingest.webhookSecret]
    : [ingest.webhookSecret, ingest.webhookSecretPrevious]
}

/** Which signature form verified: `v2` (headers bound), `body` (plain or timestamped), or `invalid`. */
type SignedForm = 'v2' | 'body' | 'invalid'

function signedFormOfAny(
  secrets: readonly string[],
  rawBody: Buffer,
  headers: DeliveryHeaders,
  ingest: ControlPlaneConfig['ingest'],
  nowSeconds: number,
): SignedForm {
  let isValid = false
  // Evaluate every secret before combining, so a match on the first does not skip the second.
  for (const secret of secrets) isValid = isSignatureValid(secret, rawBody, headers, ingest, nowSeconds) || isValid
  if (!isValid) return 'invalid'
  return headers.signatureV2 !== undefined ? 'v2' : 'body'
}

/**
 * The strongest form sent is the one checked, never a weaker one beside it: V2 (binds the routing headers),
 * else the timestamped form (bounds replays to the tolerance window), else the plain one unless the
 * configuration requires a timestamp. A sender cannot downgrade a V2 delivery it did not sign by keeping the
 * weaker headers: only the stripped delivery then verifies, and its unsigned headers are treated as unsigned.
 */
function isSignatureValid(
  secret: string,
  rawBody: Buffer,
  headers: DeliveryHeaders,
  ingest: ControlPlaneConfig['ingest'],
  nowSeconds: number,
): boolean {
  const check = { timestamp: headers.timestamp, nowSeconds, toleranceSeconds: ingest.signatureToleranceSeconds }
  if (headers.signatureV2 !== undefined) {
    // A repeated X-Tenant-Id is signed as '' here and refused (400) by the tenant read afterwards.
    const tenantId = typeof headers.tenantId === 'string' ? headers.tenantId : undefined
    const bound = { tenantId, runId: headers.runId, eventId: headers.eventId }
    return verifyWebhookV2(secret, rawBody, headers.signatureV2, bound, check)
  }
  if (headers.signatureTimestamped !== undefined || headers.timestamp !== undefined) {
    return verifyTimestampedWebhook(secret, rawBody, headers.signatureTimestamped, check)
  }
  if (ingest.requireTimestampedSignature) return false
  return verifyWebhookSignature(secret, rawBody, headers.signature)
}
