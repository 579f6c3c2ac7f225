/**
 * Registry enrollments as the HMAC routes and the registry reads need them: looked up by authority on every
 * delivery, so they are cached in memory (positive and negative answers) and the sealed per-registry secrets
 * (webhook secrets, read credential) are opened once per cache fill, not once per event. An enroll on any instance invalidates the entry everywhere through the event bus's
 * invalidation channel; the TTL (ENROLLMENT_CACHE_MS) bounds staleness should an invalidation be lost.
 */

import type { ControlPlaneStore } from '../store/store.js'
import type { EventBus } from '../events/event-bus.js'
import { openSecret, type SecretKeyring } from '../core/secret-box.js'

/** Invalidation topic of enrollment changes (key: the authority, `*` for all). */
export const ENROLLMENT_INVALIDATION_TOPIC = 'registry-enrollment'

/** Cached entries kept at most; beyond it the oldest are dropped. */
const MAX_CACHED_ENROLLMENTS = 10_000

/** An enrollment with its secret opened. Holds a secret: never log or return it. */
export interface ResolvedEnrollment {
  authority: string
  tenantId: string
  enabled: boolean
  /** Base URL the federation proxy forwards to, or null. */
  baseUrl: string | null
  /** The per-registry secret, or undefined when the global WEBHOOK_SECRET applies. */
  webhookSecret: string | undefined
  /** During a rotation: the secret in force before it, accepted until `expiresAt` (epoch ms). */
  previousWebhookSecret: { secret: string; expiresAt: number } | undefined
  /** The bearer credential sent on reads of the registry (registry-read.ts), or undefined: read anonymously. */
  readCredential: string | undefined
}

export interface EnrollmentDirectory {
  /** The enrollment of `authority` (lowercase), or undefined when not enrolled. */
  get(authority: string): Promise<ResolvedEnrollment | undefined>
  /** Drops the cached entry of `authority` on this and every other instance. */
  invalidate(authority: string): void
  /** Stops listening for invalidations. */
  close(): void
}

/** AAD context binding a sealed enrollment secret to its row. */
export function enrollmentSecretContext(authority: string): string {
  return `registry-enrollment:${authority}`
}

/** AAD context of the previous secret: distinct from the current one's, so the two sealed values cannot swap. */
export function previousEnrollmentSecretContext(authority: string): string {
  return `registry-enrollment-previous:${authority}`
}

/** AAD context of the read credential: distinct from both webhook secrets', so no sealed value can stand in. */
export function readCredentialContext(authority: string): string {
  return `registry-enrollment-read:${authority}`
}

/** Creates the directory over the store. `now` is the injected clock in epoch ms. */
export function createEnrollmentDirectory(options: {
  store: Pick<ControlPlaneStore, 'getEnrollment'>
  secrets: SecretKeyring
  bus: Pick<EventBus, 'publishInvalidation' | 'onInvalidation'>
  now: () => number
  cacheMs: number
}): EnrollmentDirectory {
  const { store, secrets, bus, now, cacheMs } = options
  const cache = new Map<string, { value: ResolvedEnrollment | undefined; expiresAt: number }>()
  const stopListening = bus.onInvalidation((topic, key) => {
    if (topic === '*' || (topic === ENROLLMENT_INVALIDATION_TOPIC && key === '*')) cache.clear()
    else if (topic === ENROLLMENT_INVALIDATION_TOPIC) cache.delete(key)
  })
  return {
    async get(authority) {
      const cached = cache.get(authority)
      if (cached !== undefined && cached.expiresAt > now()) return cached.value
      const record = await store.getEnrollment(authority)
      const value: ResolvedEnrollment | undefined =
        record === undefined
          ? undefined
          : {
              authority: record.authority,
              tenantId: record.tenantId,
              enabled: record.enabled,
              baseUrl: record.baseUrl,
              webhookSecret:
                record.webhookSecretSealed === null
                  ? undefined
                  : openSecret(secrets, record.webhookSecretSealed, enrollmentSecretContext(record.authority)),
              previousWebhookSecret:
                record.previousWebhookSecretSealed === null || record.previousWebhookSecretExpiresAt === null
                  ? undefined
                  : {
                      secret: openSecret(
                        secrets,
                        record.previousWebhookSecretSealed,
                        previousEnrollmentSecretContext(record.authority),
                      ),
                      expiresAt: record.previousWebhookSecretExpiresAt,
                    },
              readCredential:
                record.readCredentialSealed === null
                  ? undefined
                  : openSecret(secrets, record.readCredentialSealed, readCredentialContext(record.authority)),
            }
      if (cacheMs > 0) {
        if (cache.size >= MAX_CACHED_ENROLLMENTS) {
          const oldest = cache.keys().next().value
          if (oldest !== undefined) cache.delete(oldest)
        }
        cache.set(authority, { value, expiresAt: now() + cacheMs })
      }
      return value
    },
    invalidate(authority) {
      cache.delete(authority)
      bus.publishInvalidation(ENROLLMENT_INVALIDATION_TOPIC, authority)
    },
    close() {
      stopListening()
      cache.clear()
    },
  }
}
