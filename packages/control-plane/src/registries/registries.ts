/**
 * Registries: those observed in events (GET /registries) and the enrollment list that decides ingest
 * (product spec "Registry enrollment", "Registries and witness").
 *
 * Enrollment secrets (the webhook secret and the optional read credential the control plane sends on its reads
 * of the registry, registry-read.ts) are sealed at rest (secret-box.ts), never returned and never logged. Re-enrolling updates only the
 * members the request names (`null` clears one), so an admin changing `enabled` does not wipe the secret. A
 * `webhookSecret` given here replaces the secret at once (and ends any rotation in progress); a rotation with a
 * window in which both secrets are accepted is webhook-secret-rotation.ts.
 */
import { type ControlPlaneConfig, DEFAULT_TENANT } from '../core/config.js'
import type { ControlPlaneDeps } from '../core/deps.js'
import { ControlPlaneError } from '../core/errors.js'
import { formatTimestamp } from '../core/http/wire-time.js'
import type { EnrollmentRecord, EnrollmentUpsert } from '../store/store.js'
import type { EnrollmentView } from '../response-schemas/registries.js'
import {
  type EnrollmentDirectory,
  enrollmentSecretContext,
  previousEnrollmentSecretContext,
  readCredentialContext,
} from './enrollment-directory.js'
import { isSealedWithCurrentKey, openSecret, sealSecret } from '../core/secret-box.js'

/** Minimum length of a per-registry webhook secret (product spec "Limits"). */
export const MIN_ENROLLMENT_SECRET_LENGTH = 16

/** Longest read credential accepted (a registry JWT is well under 2 KiB; this leaves room for larger tokens). */
export const MAX_READ_CREDENTIAL_LENGTH = 4096

/** RFC 6750 §2.1 `b64token`: what may follow `Bearer ` in an Authorization header (no space, no control byte). */
export const READ_CREDENTIAL_PATTERN = '^[A-Za-z0-9._~+/-]+=*$'

/** An observed registry on the wire. */
export interface RegistryView {
  authority: string
  tenantId: string
  /** From the latest signed event that carried registry_base_url (informational). */
  baseUrl: string | null
  firstSeen: string
  lastSeen: string
  eventCount: number
}

export type { EnrollmentView }

/** A validated POST /registries/enroll body. */
export interface EnrollRequest {
  authority: string
  tenantId?: string
  baseUrl?: string | null
  registryDid?: string | null
  /** attacker-controlled until stored; never logged. */
  webhookSecret?: string | null
  /** A bearer credential the registry accepts for reads; attacker-controlled until stored; never logged. */
  readCredential?: string | null
  enabled?: boolean
}

/** The wire view; `now` (epoch ms) hides a previous secret that has expired (it is no longer accepted). */
export function toEnrollmentView(record: EnrollmentRecord, now: number): EnrollmentView {
  const previousExpiresAt = record.previousWebhookSecretExpiresAt
  return {
    authority: record.authority,
    tenantId: record.tenantId,
    baseUrl: record.baseUrl,
    registryDid: record.registryDid,
    enabled: record.enabled,
    hasWebhookSecret: record.webhookSecretSealed !== null,
    previousWebhookSecretExpiresAt:
      record.previousWebhookSecretSealed !== null && previousExpiresAt !== null && previousExpiresAt > now
        ? formatTimestamp(previousExpiresAt)
        : null,
    hasReadCredential: record.readCredentialSealed !== null,
    createdAt: formatTimestamp(record.createdAt),
    updatedAt: formatTimestamp(record.updatedAt),
  }
}

export async function listRegistries(
  deps: Pick<ControlPlaneDeps, 'store'>,
  tenantId: string,
): Promise<{ data: RegistryView[]; total: number }> {
  const registries = await deps.store.listRegistries(tenantId)
  return {
    data: registries.map((r) => ({
      authority: r.authority,
      tenantId: r.tenantId,
      baseUrl: r.baseUrl,
      firstSeen: formatTimestamp(r.firstSeen),
      lastSeen: formatTimestamp(r.lastSeen),
      eventCount: r.eventCount,
    })),
    total: registries.length,
  }
}

export async function listEnrollments(
  deps: Pick<ControlPlaneDeps, 'store' | 'clock'>,
  tenantId: string,
): Promise<{ data: EnrollmentView[]; total: number }> {
  const enrollments = await deps.store.listEnrollments(tenantId)
  const now = deps.clock().getTime()
  return { data: enrollments.map((record) => toEnrollmentView(record, now)), total: enrollments.length }
}

/**
 * Enrolls (or updates) a registry. The tenant is the request's `tenantId`, else the caller's tenant.
 *
 * @throws ControlPlaneError TENANT_RESERVED when `tenantId` is explicitly `default`; VALIDATION_ERROR for a
 *   short secret or a base URL the deployment cannot use (plain http outside development).
 */
export async function enrollRegistry(
  ctx: { config: ControlPlaneConfig; deps: ControlPlaneDeps; enrollments: EnrollmentDirectory },
  callerTenantId: string,
  request: EnrollRequest,
): Promise<EnrollmentView> {
  const { config, deps } = ctx
  if (request.tenantId === DEFAULT_TENANT) {
    throw new ControlPlaneError('TENANT_RESERVED', 'an enrollment cannot name the reserved tenant "default"')
  }
  const authority = request.authority.toLowerCase()
  const upsert: EnrollmentUpsert = {
    authority,
    tenantId: request.tenantId ?? callerTenantId,
    now: deps.clock().getTime(),
  }
  if (request.baseUrl !== undefined)
    upsert.baseUrl = request.baseUrl === null ? null : checkBaseUrl(config, request.baseUrl)
  if (request.registryDid !== undefined) upsert.registryDid = request.registryDid
  if (request.enabled !== undefined) upsert.enabled = request.enabled
  if (request.webhookSecret !== undefined) {
    if (request.webhookSecret !== null && request.webhookSecret.length < MIN_ENROLLMENT_SECRET_LENGTH) {
      throw new ControlPlaneError(
        'VALIDATION_ERROR',
        `webhookSecret must be at least ${MIN_ENROLLMENT_SECRET_LENGTH} characters`,
      )
    }
    upsert.webhookSecretSealed =
      request.webhookSecret === null
        ? null
        : sealSecret(deps.secrets, request.webhookSecret, enrollmentSecretContext(authority), deps.random)
  }
  if (request.readCredential !== undefined) {
    upsert.readCredentialSealed =
      request.readCredential === null
        ? null
        : sealSecret(deps.secrets, request.readCredential, readCredentialContext(authority), deps.random)
  }
  const record = await deps.store.upsertEnrollment(upsert)
  ctx.enrollments.invalidate(authority)
  return toEnrollmentView(record, upsert.now)
}

/** An https URL (http only outside production), without credentials, query or fragment. */
function checkBaseUrl(config: ControlPlaneConfig, text: string): string {
  let url: URL
  try {
    url = new URL(text)
  } catch {
    throw new ControlPlaneError('VALIDATION_ERROR', 'baseUrl must be an absolute URL')
  }
  const isAllowedScheme = url.protocol === 'https:' || (url.protocol === 'http:' && !config.isProduction)
  if (!isAllowedScheme || url.username !== '' || url.password !== '' || url.search !== '' || url.hash !== '') {
    throw new ControlPlaneError(
      'VALIDATION_ERROR',
      'baseUrl must be an https URL without credentials, query or fragment (http only outside production)',
    )
  }
  return url.toString().replace(/\/+$/, '')
}

/**
 * Re-seals every enrollment secret (webhook secrets and read credential) that is not sealed with the current key (after a key rotation), so the
 * previous key can be retired. Safe to run on several instances at once (compare-and-swap per row).
 *
 * @returns how many secrets were re-sealed.
 */
export async function resealEnrollmentSecrets(
  deps: Pick<ControlPlaneDeps, 'store' | 'secrets' | 'random'>,
): Promise<number> {
  let count = 0
  const reseal = (sealed: string, context: string) =>
    sealSecret(deps.secrets, openSecret(deps.secrets, sealed, context), context, deps.random)
  for (const record of await deps.store.listSealedEnrollments()) {
    const sealed = record.webhookSecretSealed
    if (sealed !== null && !isSealedWithCurrentKey(deps.secrets, sealed)) {
      const resealed = reseal(sealed, enrollmentSecretContext(record.authority))
      if (await deps.store.replaceSealedSecret(record.authority, sealed, resealed)) count += 1
    }
    const previous = record.previousWebhookSecretSealed
    if (previous !== null && !isSealedWithCurrentKey(deps.secrets, previous)) {
      const resealed = reseal(previous, previousEnrollmentSecretContext(record.authority))
      if (await deps.store.replaceSealedPreviousSecret(record.authority, previous, resealed)) count += 1
    }
    const read = record.readCredentialSealed
    if (read !== null && !isSealedWithCurrentKey(deps.secrets, read)) {
      const resealed = reseal(read, readCredentialContext(record.authority))
      if (await deps.store.replaceSealedReadCredential(record.authority, read, resealed)) count += 1
    }
  }
  return count
}
