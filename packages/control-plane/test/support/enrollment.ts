/**
 * Test support: enrollments written straight to the store (the registries routes have their own tests), with the
 * webhook secret sealed the way the service seals it.
 */
import { enrollmentSecretContext } from '../../src/registries/enrollment-directory.js'
import { sealSecret } from '../../src/core/secret-box.js'
import { T0, type TestApp } from './test-app.js'

/** Enrolls `authority` (tenant `acme` unless given), with its own webhook secret when `secret` is given. */
export async function enroll(
  t: TestApp,
  authority: string,
  options: { tenantId?: string; secret?: string; enabled?: boolean } = {},
): Promise<void> {
  await t.store.upsertEnrollment({
    authority,
    tenantId: options.tenantId ?? 'acme',
    webhookSecretSealed:
      options.secret === undefined
        ? null
        : sealSecret(t.deps.secrets, options.secret, enrollmentSecretContext(authority), t.deps.random),
    enabled: options.enabled ?? true,
    now: T0,
  })
}

/** Number of stored events of `tenantId`. */
export async function eventCount(t: TestApp, tenantId = 'default'): Promise<number> {
  return (await t.store.listEvents({ tenantId, order: 'asc', limit: 1000 })).length
}
