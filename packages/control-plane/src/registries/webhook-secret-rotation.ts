/**
 * Webhook secret rotation of an enrollment without a window of refused deliveries (docs/deploy.md "Rotation").
 *
 * Rotating makes the new secret current and keeps the one it replaces as the enrollment's previous secret until
 * an expiry (or until an admin drops it), so the registry may keep signing with the old secret while its instances
 * move to the new one; the HMAC routes accept either (registry-delivery.ts). The previous secret is sealed like
 * the current one, under its own AAD context. When the enrollment had no secret of its own, the global
 * WEBHOOK_SECRET was the one in force, so that is what the previous slot keeps.
 */
import type { ControlPlaneConfig } from '../core/config.js'
import type { ControlPlaneDeps } from '../core/deps.js'
import { ControlPlaneError } from '../core/errors.js'
import type { EnrollmentRecord } from '../store/store.js'
import {
  type EnrollmentDirectory,
  enrollmentSecretContext,
  previousEnrollmentSecretContext,
} from './enrollment-directory.js'
import { toEnrollmentView, type EnrollmentView, MIN_ENROLLMENT_SECRET_LENGTH } from './registries.js'
import { openSecret, sealSecret } from '../core/secret-box.js'

/** How long the previous secret stays accepted when the request does not say (one day). */
export const DEFAULT_PREVIOUS_SECRET_SECONDS = 86_400
/** The longest a previous secret may stay accepted (30 days): a rotation is meant to end. */
export const MAX_PREVIOUS_SECRET_SECONDS = 30 * 86_400
/** Compare-and-swap attempts before giving up on a rotation that keeps racing others. */
const MAX_ATTEMPTS = 5

/** A validated rotation request. */
export interface RotateSecretRequest {
  /** The new secret; attacker-controlled until stored, never logged. */
  webhookSecret: string
  /** Seconds the replaced secret stays accepted (1 … MAX_PREVIOUS_SECRET_SECONDS). */
  previousValidForSeconds?: number
}

interface RotationContext {
  config: ControlPlaneConfig
  deps: ControlPlaneDeps
  enrollments: EnrollmentDirectory
}

/**
 * Rotates the webhook secret of `authority`, enrolled in `tenantId`.
 *
 * @throws ControlPlaneError REGISTRY_NOT_FOUND when the authority is not enrolled in the caller's tenant;
 *   VALIDATION_ERROR for a short secret, an out-of-range validity, or a new secret equal to the current one.
 */
export async function rotateEnrollmentSecret(
  ctx: RotationContext,
  tenantId: string,
  rawAuthority: string,
  request: RotateSecretRequest,
): Promise<EnrollmentView> {
  const { deps } = ctx
  const authority = rawAuthority.toLowerCase()
  const validFor = request.previousValidForSeconds ?? DEFAULT_PREVIOUS_SECRET_SECONDS
  if (!Number.isSafeInteger(validFor) || validFor < 1 || validFor > MAX_PREVIOUS_SECRET_SECONDS) {
    throw new ControlPlaneError(
      'VALIDATION_ERROR',
      `previousValidForSeconds must be an integer from 1 to ${MAX_PREVIOUS_SECRET_SECONDS}`,
    )
  }
  if (request.webhookSecret.length < MIN_ENROLLMENT_SECRET_LENGTH) {
    throw new ControlPlaneError(
      'VALIDATION_ERROR',
      `webhookSecret must be at least ${MIN_ENROLLMENT_SECRET_LENGTH} characters`,
    )
  }
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const record = await findInTenant(deps, tenantId, authority)
    const inForce = secretInForce(ctx, record)
    if (inForce === request.webhookSecret) {
      throw new ControlPlaneError('VALIDATION_ERROR', 'webhookSecret must differ from the secret in force')
    }
    const now = deps.clock().getTime()
    const rotated = await deps.store.rotateEnrollmentSecret({
      authority,
      expectedCurrentSealed: record.webhookSecretSealed,
      currentSealed: sealSecret(deps.secrets, request.webhookSecret, enrollmentSecretContext(authority), deps.random),
      previousSealed:
        inForce === ''
          ? null
          : sealSecret(deps.secrets, inForce, previousEnrollmentSecretContext(authority), deps.random),
      previousExpiresAt: inForce === '' ? null : now + validFor * 1000,
      now,
    })
    if (rotated !== undefined) {
      ctx.enrollments.invalidate(authority)
      return toEnrollmentView(rotated, now)
    }
  }
  throw new Error(`webhook secret rotation of ${authority} lost ${MAX_ATTEMPTS} races in a row`)
}

/**
 * Stops accepting the previous secret of `authority` now (the end of a rotation, once every registry instance
 * signs with the new secret).
 *
 * @throws ControlPlaneError REGISTRY_NOT_FOUND when the authority is not enrolled in the caller's tenant.
 */
export async function dropPreviousEnrollmentSecret(
  ctx: Pick<RotationContext, 'deps' | 'enrollments'>,
  tenantId: string,
  rawAuthority: string,
): Promise<EnrollmentView> {
  const authority = rawAuthority.toLowerCase()
  await findInTenant(ctx.deps, tenantId, authority)
  const now = ctx.deps.clock().getTime()
  const record = await ctx.deps.store.clearPreviousEnrollmentSecret(authority, now)
  if (record === undefined) throw notFound()
  ctx.enrollments.invalidate(authority)
  return toEnrollmentView(record, now)
}

/** The enrollment, only when it belongs to the caller's tenant (another tenant's is indistinguishable from none). */
async function findInTenant(
  deps: Pick<ControlPlaneDeps, 'store'>,
  tenantId: string,
  authority: string,
): Promise<EnrollmentRecord> {
  const record = await deps.store.getEnrollment(authority)
  if (record === undefined || record.tenantId !== tenantId) throw notFound()
  return record
}

/** The secret deliveries of this enrollment must carry today: its own, else WEBHOOK_SECRET ('' when none). */
function secretInForce(ctx: RotationContext, record: EnrollmentRecord): string {
  return record.webhookSecretSealed === null
    ? ctx.config.ingest.webhookSecret
    : openSecret(ctx.deps.secrets, record.webhookSecretSealed, enrollmentSecretContext(record.authority))
}

function notFound(): ControlPlaneError {
  return new ControlPlaneError('REGISTRY_NOT_FOUND', 'no such enrollment in this tenant')
}
