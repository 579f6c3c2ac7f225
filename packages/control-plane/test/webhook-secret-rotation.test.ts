/**
 * Webhook secret rotation without a window of refused deliveries, over HTTP (inject), on every dialect: an
 * enrollment's rotation (both secrets accepted until the previous one expires or is dropped; sealed at rest;
 * tenant-scoped; admin only) and the global WEBHOOK_SECRET_PREVIOUS.
 */
import { testDatabaseTargets } from '@acdp/storage'
import { afterEach, describe, expect, it } from 'vitest'
import { loadConfig } from '../src/core/config.js'
import { enrollmentSecretContext, previousEnrollmentSecretContext } from '../src/registries/enrollment-directory.js'
import { resealEnrollmentSecrets } from '../src/registries/registries.js'
import { createSecretKeyring, isSealedWithCurrentKey, openSecret } from '../src/core/secret-box.js'
import { publishedEvent, signedDelivery, timestampedHeaders } from './support/signed-delivery.js'
import { ADMIN_KEY, bearer, openTestApp, T0, type TestApp, TEST_WEBHOOK_SECRET, USER_KEY } from './support/test-app.js'

const admin = bearer(ADMIN_KEY)
const OLD_SECRET = 'old-registry-secret-0123456789'
const NEW_SECRET = 'new-registry-secret-9876543210'
const OTHER_SECRET = 'not-a-registry-secret-000000000'

async function enroll(t: TestApp, body: Record<string, unknown>) {
  const answer = await t.app.inject({
    method: 'POST',
    url: '/registries/enroll',
    headers: admin,
    payload: { authority: 'reg.example', tenantId: 'acme', ...body },
  })
  expect(answer.statusCode).toBe(200)
}

async function rotate(t: TestApp, body: Record<string, unknown>, headers = { ...admin, 'x-tenant-id': 'acme' }) {
  return t.app.inject({ method: 'POST', url: '/registries/reg.example/webhook-secret/rotate', headers, payload: body })
}

async function dropPrevious(t: TestApp, headers = { ...admin, 'x-tenant-id': 'acme' }) {
  return t.app.inject({ method: 'DELETE', url: '/registries/reg.example/webhook-secret/previous', headers })
}

/** Status of one delivery signed with `secret`. */
async function deliver(t: TestApp, secret: string): Promise<number> {
  return (await t.app.inject(signedDelivery(publishedEvent(), { secret }))).statusCode
}

describe.each(testDatabaseTargets())('webhook secret rotation on $name', (target) => {
  let t: TestApp
  afterEach(async () => {
    await t.close()
  })

  it('accepts the new and the replaced secret until the validity ends, then only the new one', async () => {
    t = await openTestApp(target)
    await enroll(t, { webhookSecret: OLD_SECRET })
    const answer = await rotate(t, { webhookSecret: NEW_SECRET, previousValidForSeconds: 600 })
    expect(answer.statusCode).toBe(200)
    expect(answer.json()).toMatchObject({
      authority: 'reg.example',
      hasWebhookSecret: true,
      previousWebhookSecretExpiresAt: '2026-01-15T12:10:00.000Z',
    })
    expect(answer.body).not.toContain(OLD_SECRET)
    expect(answer.body).not.toContain(NEW_SECRET)
    expect(await deliver(t, OLD_SECRET)).toBe(204)
    expect(await deliver(t, NEW_SECRET)).toBe(204)
    expect(await deliver(t, OTHER_SECRET)).toBe(401)
    expect(await deliver(t, TEST_WEBHOOK_SECRET)).toBe(401)

    t.advance(600_000)
    expect(await deliver(t, OLD_SECRET)).toBe(401)
    expect(await deliver(t, NEW_SECRET)).toBe(204)
    const list = await t.app.inject({
      method: 'GET',
      url: '/registries/enrollments',
      headers: { ...bearer(USER_KEY), 'x-tenant-id': 'acme' },
    })
    expect(list.json().data[0]).toMatchObject({ hasWebhookSecret: true, previousWebhookSecretExpiresAt: null })
  })

  it('accepts the replaced secret in the timestamped form too', async () => {
    t = await openTestApp(target)
    await enroll(t, { webhookSecret: OLD_SECRET })
    expect((await rotate(t, { webhookSecret: NEW_SECRET })).statusCode).toBe(200)
    for (const secret of [OLD_SECRET, NEW_SECRET]) {
      const raw = JSON.stringify(publishedEvent())
      const answer = await t.app.inject({
        method: 'POST',
        url: '/ingest/acdp',
        headers: { 'content-type': 'application/json', ...timestampedHeaders(raw, T0 / 1000, secret) },
        payload: raw,
      })
      expect(answer.statusCode).toBe(204)
    }
  })

  it('stops accepting the previous secret at once when an admin drops it', async () => {
    t = await openTestApp(target)
    await enroll(t, { webhookSecret: OLD_SECRET })
    await rotate(t, { webhookSecret: NEW_SECRET })
    expect(await deliver(t, OLD_SECRET)).toBe(204)
    const dropped = await dropPrevious(t)
    expect(dropped.statusCode).toBe(200)
    expect(dropped.json()).toMatchObject({ hasWebhookSecret: true, previousWebhookSecretExpiresAt: null })
    expect(await deliver(t, OLD_SECRET)).toBe(401)
    expect(await deliver(t, NEW_SECRET)).toBe(204)
    const row = await t.store.getEnrollment('reg.example')
    expect(row?.previousWebhookSecretSealed).toBeNull()
    expect(row?.previousWebhookSecretExpiresAt).toBeNull()
  })

  it('keeps WEBHOOK_SECRET as the previous secret when the enrollment had none of its own', async () => {
    t = await openTestApp(target)
    await enroll(t, {})
    expect(await deliver(t, TEST_WEBHOOK_SECRET)).toBe(204)
    await rotate(t, { webhookSecret: NEW_SECRET })
    expect(await deliver(t, TEST_WEBHOOK_SECRET)).toBe(204)
    expect(await deliver(t, NEW_SECRET)).toBe(204)
    await dropPrevious(t)
    expect(await deliver(t, TEST_WEBHOOK_SECRET)).toBe(401)
    expect(await deliver(t, NEW_SECRET)).toBe(204)
  })

  it('stores the previous secret sealed, bound to its own slot, and re-seals it after a key rotation', async () => {
    t = await openTestApp(target)
    await enroll(t, { webhookSecret: OLD_SECRET })
    await rotate(t, { webhookSecret: NEW_SECRET })
    const row = await t.store.getEnrollment('reg.example')
    const previous = row?.previousWebhookSecretSealed as string
    expect(previous).toMatch(/^acdp-sealed:v1:/)
    expect(previous).not.toContain(OLD_SECRET)
    expect(openSecret(t.deps.secrets, previous, previousEnrollmentSecretContext('reg.example'))).toBe(OLD_SECRET)
    // Copied into the current slot, it does not open: the two slots cannot be swapped.
    expect(() => openSecret(t.deps.secrets, previous, enrollmentSecretContext('reg.example'))).toThrow()

    const keyring = createSecretKeyring(new Uint8Array(32).fill(42), [t.deps.secrets.current])
    expect(await resealEnrollmentSecrets({ ...t.deps, secrets: keyring })).toBe(2)
    const resealed = await t.store.getEnrollment('reg.example')
    expect(isSealedWithCurrentKey(keyring, resealed?.previousWebhookSecretSealed as string)).toBe(true)
    expect(
      openSecret(
        createSecretKeyring(keyring.current),
        resealed?.previousWebhookSecretSealed as string,
        previousEnrollmentSecretContext('reg.example'),
      ),
    ).toBe(OLD_SECRET)
  })

  it('a re-enroll with a new webhookSecret replaces the secret and ends the rotation', async () => {
    t = await openTestApp(target)
    await enroll(t, { webhookSecret: OLD_SECRET })
    await rotate(t, { webhookSecret: NEW_SECRET })
    await enroll(t, { webhookSecret: OTHER_SECRET })
    expect(await deliver(t, OLD_SECRET)).toBe(401)
    expect(await deliver(t, NEW_SECRET)).toBe(401)
    expect(await deliver(t, OTHER_SECRET)).toBe(204)
    expect((await t.store.getEnrollment('reg.example'))?.previousWebhookSecretSealed).toBeNull()
  })

  it('a second rotation keeps only the secret it replaced', async () => {
    t = await openTestApp(target)
    await enroll(t, { webhookSecret: OLD_SECRET })
    await rotate(t, { webhookSecret: NEW_SECRET })
    await rotate(t, { webhookSecret: OTHER_SECRET })
    expect(await deliver(t, OLD_SECRET)).toBe(401)
    expect(await deliver(t, NEW_SECRET)).toBe(204)
    expect(await deliver(t, OTHER_SECRET)).toBe(204)
  })

  it.each([
    ['a short secret', { webhookSecret: 'short' }, 400, 'VALIDATION_ERROR'],
    ['the secret in force', { webhookSecret: OLD_SECRET }, 400, 'VALIDATION_ERROR'],
    ['a validity of 0 s', { webhookSecret: NEW_SECRET, previousValidForSeconds: 0 }, 400, 'VALIDATION_ERROR'],
    [
      'a validity over 30 days',
      { webhookSecret: NEW_SECRET, previousValidForSeconds: 2_592_001 },
      400,
      'VALIDATION_ERROR',
    ],
    ['an unknown member', { webhookSecret: NEW_SECRET, extra: 1 }, 400, 'VALIDATION_ERROR'],
  ])('refuses %s without changing anything', async (_label, body, status, errorCode) => {
    t = await openTestApp(target)
    await enroll(t, { webhookSecret: OLD_SECRET })
    const answer = await rotate(t, body)
    expect(answer.statusCode).toBe(status)
    expect(answer.json()).toMatchObject({ errorCode })
    expect(answer.body).not.toContain(OLD_SECRET)
    expect(await deliver(t, OLD_SECRET)).toBe(204)
    expect((await t.store.getEnrollment('reg.example'))?.previousWebhookSecretSealed).toBeNull()
  })

  it('is admin only and scoped to the enrollment tenant', async () => {
    t = await openTestApp(target)
    await enroll(t, { webhookSecret: OLD_SECRET })
    const asUser = await rotate(t, { webhookSecret: NEW_SECRET }, { ...bearer(USER_KEY), 'x-tenant-id': 'acme' })
    expect(asUser.statusCode).toBe(403)
    const otherTenant = await rotate(t, { webhookSecret: NEW_SECRET }, { ...admin, 'x-tenant-id': 'beta' })
    expect(otherTenant.statusCode).toBe(404)
    expect(otherTenant.json()).toMatchObject({ errorCode: 'REGISTRY_NOT_FOUND' })
    expect((await dropPrevious(t, { ...admin, 'x-tenant-id': 'beta' })).statusCode).toBe(404)
    const unknown = await t.app.inject({
      method: 'POST',
      url: '/registries/unknown.example/webhook-secret/rotate',
      headers: { ...admin, 'x-tenant-id': 'acme' },
      payload: { webhookSecret: NEW_SECRET },
    })
    expect(unknown.statusCode).toBe(404)
    expect(await deliver(t, NEW_SECRET)).toBe(401)
    expect(await deliver(t, OLD_SECRET)).toBe(204)
  })
})

describe.each(testDatabaseTargets())('WEBHOOK_SECRET_PREVIOUS on $name', (target) => {
  let t: TestApp
  afterEach(async () => {
    await t.close()
  })

  it('accepts both global secrets for authorities without their own, never for one that has its own', async () => {
    t = await openTestApp(target, { WEBHOOK_SECRET: NEW_SECRET, WEBHOOK_SECRET_PREVIOUS: OLD_SECRET })
    expect(await deliver(t, NEW_SECRET)).toBe(204)
    expect(await deliver(t, OLD_SECRET)).toBe(204)
    expect(await deliver(t, OTHER_SECRET)).toBe(401)
    await enroll(t, { webhookSecret: OTHER_SECRET })
    expect(await deliver(t, OLD_SECRET)).toBe(401)
    expect(await deliver(t, NEW_SECRET)).toBe(401)
    expect(await deliver(t, OTHER_SECRET)).toBe(204)
  })

  it.each([
    [
      'without WEBHOOK_SECRET',
      { NODE_ENV: 'development', WEBHOOK_SECRET_PREVIOUS: OLD_SECRET },
      /without WEBHOOK_SECRET/,
    ],
    ['too short', { WEBHOOK_SECRET: NEW_SECRET, WEBHOOK_SECRET_PREVIOUS: 'short' }, /at least 16/],
    ['equal to WEBHOOK_SECRET', { WEBHOOK_SECRET: NEW_SECRET, WEBHOOK_SECRET_PREVIOUS: NEW_SECRET }, /equals/],
  ])('is refused %s', (_label, env, message) => {
    expect(() => loadConfig({ NODE_ENV: 'test', ...env })).toThrow(message)
  })
})
