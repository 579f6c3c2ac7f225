/**
 * Agents, observed registries and enrollments over HTTP, on every dialect.
 */
import { testDatabaseTargets } from '@acdp/storage'
import { afterEach, describe, expect, it } from 'vitest'
import { loadConfig } from '../src/core/config.js'
import { enrollmentSecretContext, readCredentialContext } from '../src/registries/enrollment-directory.js'
import { resealEnrollmentSecrets } from '../src/registries/registries.js'
import { createSecretKeyring, isSealedWithCurrentKey, openSecret } from '../src/core/secret-box.js'
import { publishedEvent, retrievedEvent, signedDelivery } from './support/signed-delivery.js'
import { ADMIN_KEY, bearer, openTestApp, type TestApp, USER_KEY } from './support/test-app.js'

const user = bearer(USER_KEY)
const admin = bearer(ADMIN_KEY)
const SECRET = 'per-registry-secret-0123456789'
/** Shaped like a registry bearer JWT (three base64url parts), as a read credential. */
const READ_CREDENTIAL = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJkaWQ6a2V5OnJlYWRlciJ9.c2lnbmF0dXJlLXJlYWQtY3JlZA'

async function enroll(t: TestApp, body: Record<string, unknown>, headers: Record<string, string> = admin) {
  return t.app.inject({ method: 'POST', url: '/registries/enroll', headers, payload: body })
}

describe.each(testDatabaseTargets())('agents and registries on $name', (target) => {
  let t: TestApp
  afterEach(async () => {
    await t.close()
  })

  describe('GET /agents', () => {
    it('lists agents of the tenant by last_seen, newest first, as { data, total }', async () => {
      t = await openTestApp(target)
      await t.app.inject(signedDelivery(publishedEvent({ agent_id: 'did:key:z6MkFirst' })))
      t.advance(1000)
      await t.app.inject(signedDelivery(publishedEvent({ agent_id: 'did:key:z6MkSecond' })))
      await t.app.inject(signedDelivery(retrievedEvent()))
      const res = await t.app.inject({ method: 'GET', url: '/agents', headers: user })
      expect(res.statusCode).toBe(200)
      expect(res.json()).toEqual({
        data: [
          {
            agentDid: 'did:key:z6MkSecond',
            tenantId: 'default',
            firstSeen: '2026-01-15T12:00:01.000Z',
            lastSeen: '2026-01-15T12:00:01.000Z',
            registryAuthority: 'reg.example',
            contextCount: 1,
            eventCount: 1,
          },
          expect.objectContaining({ agentDid: 'did:key:z6MkFirst' }),
        ],
        total: 2,
      })
      expect(
        (await t.app.inject({ method: 'GET', url: '/agents?limit=1&offset=1', headers: user })).json(),
      ).toMatchObject({
        data: [{ agentDid: 'did:key:z6MkFirst' }],
        total: 2,
      })
    })

    it.each([
      ['limit=0', 400],
      ['limit=500', 200],
      ['limit=501', 400],
      ['offset=-1', 400],
    ])('%s → %i', async (query, status) => {
      t = await openTestApp(target)
      expect((await t.app.inject({ method: 'GET', url: `/agents?${query}`, headers: user })).statusCode).toBe(status)
    })

    it('is tenant-scoped', async () => {
      t = await openTestApp(target)
      await t.app.inject(signedDelivery(publishedEvent(), { headers: { 'x-tenant-id': 'acme' } }))
      expect((await t.app.inject({ method: 'GET', url: '/agents', headers: user })).json().total).toBe(0)
      expect(
        (await t.app.inject({ method: 'GET', url: '/agents', headers: { ...user, 'x-tenant-id': 'acme' } })).json()
          .total,
      ).toBe(1)
    })
  })

  describe('GET /agents/*did', () => {
    it.each([
      [
        'did:key',
        'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK',
        'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK',
      ],
      [
        'did:web with a port (percent-encoded once in the DID, twice in the URL)',
        'did:web:agents.example%3A8443:alice',
        'did:web:agents.example%253A8443:alice',
      ],
    ])('returns the agent for a %s', async (_name, did, urlPart) => {
      t = await openTestApp(target)
      await t.app.inject(signedDelivery(publishedEvent({ agent_id: did })))
      const res = await t.app.inject({ method: 'GET', url: `/agents/${urlPart}`, headers: user })
      expect(res.statusCode).toBe(200)
      expect(res.json()).toMatchObject({ agentDid: did, contextCount: 1 })
    })

    it('answers 404 AGENT_NOT_FOUND for an agent never seen (or seen only in another tenant)', async () => {
      t = await openTestApp(target)
      await t.app.inject(
        signedDelivery(publishedEvent({ agent_id: 'did:key:z6MkOther' }), { headers: { 'x-tenant-id': 'acme' } }),
      )
      for (const did of ['did:key:z6MkNever', 'did:key:z6MkOther']) {
        const res = await t.app.inject({ method: 'GET', url: `/agents/${did}`, headers: user })
        expect(res.statusCode).toBe(404)
        expect(res.json()).toEqual({ statusCode: 404, errorCode: 'AGENT_NOT_FOUND', message: expect.any(String) })
      }
    })
  })

  describe('GET /registries', () => {
    it('lists observed registries with eventCount and the signed base URL', async () => {
      t = await openTestApp(target)
      await t.app.inject(signedDelivery(publishedEvent()))
      await t.app.inject(signedDelivery(retrievedEvent()))
      const res = await t.app.inject({ method: 'GET', url: '/registries', headers: user })
      expect(res.json()).toEqual({
        data: [
          {
            authority: 'reg.example',
            tenantId: 'default',
            baseUrl: 'https://reg.example',
            firstSeen: '2026-01-15T12:00:00.000Z',
            lastSeen: '2026-01-15T12:00:00.000Z',
            eventCount: 2,
          },
        ],
        total: 1,
      })
    })
  })

  describe('enrollment', () => {
    it('POST /registries/enroll (admin) creates an enrollment and never returns the secret', async () => {
      t = await openTestApp(target)
      const res = await enroll(t, {
        authority: 'Reg.Example',
        tenantId: 'acme',
        baseUrl: 'https://reg.example/',
        registryDid: 'did:web:reg.example',
        webhookSecret: SECRET,
      })
      expect(res.statusCode).toBe(200)
      expect(res.json()).toEqual({
        authority: 'reg.example',
        tenantId: 'acme',
        baseUrl: 'https://reg.example',
        registryDid: 'did:web:reg.example',
        enabled: true,
        hasWebhookSecret: true,
        previousWebhookSecretExpiresAt: null,
        hasReadCredential: false,
        createdAt: '2026-01-15T12:00:00.000Z',
        updatedAt: '2026-01-15T12:00:00.000Z',
      })
      expect(res.body).not.toContain(SECRET)
      const list = await t.app.inject({
        method: 'GET',
        url: '/registries/enrollments',
        headers: { ...user, 'x-tenant-id': 'acme' },
      })
      expect(list.json()).toMatchObject({ total: 1, data: [{ authority: 'reg.example', hasWebhookSecret: true }] })
      expect(list.body).not.toContain(SECRET)
      expect((await t.app.inject({ method: 'GET', url: '/registries/enrollments', headers: user })).json().total).toBe(
        0,
      )
    })

    it('stores the secret sealed (AES-256-GCM), bound to its authority', async () => {
      t = await openTestApp(target)
      await enroll(t, { authority: 'reg.example', tenantId: 'acme', webhookSecret: SECRET })
      const sealed = (await t.store.getEnrollment('reg.example'))?.webhookSecretSealed as string
      expect(sealed).toMatch(/^acdp-sealed:v1:/)
      expect(sealed).not.toContain(SECRET)
      expect(openSecret(t.deps.secrets, sealed, enrollmentSecretContext('reg.example'))).toBe(SECRET)
    })

    it('takes effect for ingest at once: the enrolled secret and tenant apply, the global secret is refused', async () => {
      t = await openTestApp(target)
      await t.app.inject(signedDelivery(publishedEvent()))
      await enroll(t, { authority: 'reg.example', tenantId: 'acme', webhookSecret: SECRET })
      expect((await t.app.inject(signedDelivery(publishedEvent()))).statusCode).toBe(401)
      expect((await t.app.inject(signedDelivery(publishedEvent(), { secret: SECRET }))).statusCode).toBe(204)
      await enroll(t, { authority: 'reg.example', tenantId: 'acme', enabled: false })
      expect((await t.app.inject(signedDelivery(publishedEvent(), { secret: SECRET }))).json()).toMatchObject({
        errorCode: 'REGISTRY_DISABLED',
      })
    })

    it('re-enrolling changes only the named members; null clears one', async () => {
      t = await openTestApp(target)
      await enroll(t, {
        authority: 'reg.example',
        tenantId: 'acme',
        baseUrl: 'https://reg.example',
        webhookSecret: SECRET,
      })
      t.advance(1000)
      const updated = (await enroll(t, { authority: 'reg.example', tenantId: 'acme', enabled: false })).json()
      expect(updated).toMatchObject({
        baseUrl: 'https://reg.example',
        hasWebhookSecret: true,
        enabled: false,
        updatedAt: '2026-01-15T12:00:01.000Z',
      })
      const cleared = (
        await enroll(t, { authority: 'reg.example', tenantId: 'acme', webhookSecret: null, baseUrl: null })
      ).json()
      expect(cleared).toMatchObject({
        baseUrl: null,
        hasWebhookSecret: false,
        enabled: false,
        createdAt: '2026-01-15T12:00:00.000Z',
      })
    })

    it('takes a write-only read credential: sealed for its own context, never returned, replaced or cleared', async () => {
      t = await openTestApp(target)
      const res = await enroll(t, { authority: 'reg.example', tenantId: 'acme', readCredential: READ_CREDENTIAL })
      expect(res.statusCode).toBe(200)
      expect(res.json()).toMatchObject({ hasReadCredential: true, hasWebhookSecret: false })
      expect(res.body).not.toContain(READ_CREDENTIAL)
      const list = await t.app.inject({
        method: 'GET',
        url: '/registries/enrollments',
        headers: { ...user, 'x-tenant-id': 'acme' },
      })
      expect(list.json()).toMatchObject({ total: 1, data: [{ authority: 'reg.example', hasReadCredential: true }] })
      expect(list.body).not.toContain(READ_CREDENTIAL)
      const sealed = (await t.store.getEnrollment('reg.example'))?.readCredentialSealed as string
      expect(sealed).toMatch(/^acdp-sealed:v1:/)
      expect(sealed).not.toContain(READ_CREDENTIAL)
      expect(openSecret(t.deps.secrets, sealed, readCredentialContext('reg.example'))).toBe(READ_CREDENTIAL)
      // Bound to its slot: it does not open as the webhook secret, nor as another registry's credential.
      expect(() => openSecret(t.deps.secrets, sealed, enrollmentSecretContext('reg.example'))).toThrow(/authentication/)
      expect(() => openSecret(t.deps.secrets, sealed, readCredentialContext('other.example'))).toThrow(/authentication/)

      // An update naming other members keeps it; a new value replaces it; null clears it.
      const kept = await enroll(t, { authority: 'reg.example', tenantId: 'acme', enabled: false })
      expect(kept.json()).toMatchObject({ hasReadCredential: true, enabled: false })
      expect((await t.store.getEnrollment('reg.example'))?.readCredentialSealed).toBe(sealed)
      const replacement = `${READ_CREDENTIAL}x`
      await enroll(t, { authority: 'reg.example', tenantId: 'acme', readCredential: replacement })
      const resealed = (await t.store.getEnrollment('reg.example'))?.readCredentialSealed as string
      expect(openSecret(t.deps.secrets, resealed, readCredentialContext('reg.example'))).toBe(replacement)
      const cleared = await enroll(t, { authority: 'reg.example', tenantId: 'acme', readCredential: null })
      expect(cleared.json()).toMatchObject({ hasReadCredential: false })
      expect((await t.store.getEnrollment('reg.example'))?.readCredentialSealed).toBeNull()
    })

    it('drops a kept read credential when the enrollment moves to another tenant', async () => {
      t = await openTestApp(target)
      await enroll(t, { authority: 'reg.example', tenantId: 'acme', readCredential: READ_CREDENTIAL })
      expect((await enroll(t, { authority: 'reg.example', tenantId: 'acme' })).json().hasReadCredential).toBe(true)
      const moved = await enroll(t, { authority: 'reg.example', tenantId: 'beta' })
      expect(moved.json()).toMatchObject({ tenantId: 'beta', hasReadCredential: false })
      expect((await t.store.getEnrollment('reg.example'))?.readCredentialSealed).toBeNull()
      // Given in the same request, the credential goes with the move (the admin granted it for the new tenant).
      const given = await enroll(t, { authority: 'reg.example', tenantId: 'acme', readCredential: READ_CREDENTIAL })
      expect(given.json()).toMatchObject({ tenantId: 'acme', hasReadCredential: true })
    })

    it.each([
      ['a number', 12345],
      ['an empty string', ''],
      ['one over 4096 characters', 'a'.repeat(4097)],
      ['a value with a space', 'abc def'],
      ['a value with a line break', 'abc\r\nx-injected: 1'],
      ['an object', { token: 'abc' }],
    ])('refuses a read credential that is %s with the envelope and 400, storing nothing', async (_name, value) => {
      t = await openTestApp(target)
      const res = await enroll(t, { authority: 'reg.example', readCredential: value })
      expect(res.statusCode).toBe(400)
      expect(res.json()).toEqual({ statusCode: 400, errorCode: 'VALIDATION_ERROR', message: expect.any(String) })
      expect(res.body).not.toContain('abc')
      expect(await t.store.getEnrollment('reg.example')).toBeUndefined()
    })

    it('accepts a read credential of exactly 4096 characters (the boundary)', async () => {
      t = await openTestApp(target)
      const res = await enroll(t, { authority: 'reg.example', readCredential: 'a'.repeat(4096) })
      expect(res.statusCode).toBe(200)
      expect(res.json().hasReadCredential).toBe(true)
    })

    it('defaults the tenant to the caller’s tenant', async () => {
      t = await openTestApp(target)
      const res = await enroll(t, { authority: 'reg.example' }, { ...admin, 'x-tenant-id': 'beta' })
      expect(res.json()).toMatchObject({ tenantId: 'beta' })
    })

    it.each([
      ['a user key', { authority: 'reg.example' }, user, 403, 'ADMIN_REQUIRED'],
      ['no credential', { authority: 'reg.example' }, {}, 401, 'UNAUTHORIZED'],
      ['tenantId "default"', { authority: 'reg.example', tenantId: 'default' }, admin, 403, 'TENANT_RESERVED'],
      [
        'a 15-character secret',
        { authority: 'reg.example', webhookSecret: 'x'.repeat(15) },
        admin,
        400,
        'VALIDATION_ERROR',
      ],
      ['a malformed authority', { authority: 'reg.example/path' }, admin, 400, 'VALIDATION_ERROR'],
      [
        'a base URL with credentials',
        { authority: 'r.example', baseUrl: 'https://u:p@r.example' },
        admin,
        400,
        'VALIDATION_ERROR',
      ],
      [
        'a base URL that is not https',
        { authority: 'r.example', baseUrl: 'ftp://r.example' },
        admin,
        400,
        'VALIDATION_ERROR',
      ],
      ['an unknown member', { authority: 'r.example', secret: 'x' }, admin, 400, 'VALIDATION_ERROR'],
      ['a missing authority', { tenantId: 'acme' }, admin, 400, 'VALIDATION_ERROR'],
    ])('refuses %s', async (_name, body, headers, status, code) => {
      t = await openTestApp(target)
      const res = await enroll(t, body, headers)
      expect(res.statusCode).toBe(status)
      expect(res.json()).toEqual({ statusCode: status, errorCode: code, message: expect.any(String) })
      expect(res.body).not.toContain('x'.repeat(15))
    })

    it('answers 413 PAYLOAD_TOO_LARGE for a body over HTTP_MAX_BODY_BYTES (non-HMAC routes)', async () => {
      t = await openTestApp(target, { HTTP_MAX_BODY_BYTES: '1024' })
      const res = await enroll(t, { authority: 'reg.example', registryDid: `did:web:${'a'.repeat(1100)}` })
      expect(res.statusCode).toBe(413)
      expect(res.json()).toEqual({ statusCode: 413, errorCode: 'PAYLOAD_TOO_LARGE', message: expect.any(String) })
    })

    it('accepts a 16-character secret (the boundary)', async () => {
      t = await openTestApp(target)
      expect((await enroll(t, { authority: 'reg.example', webhookSecret: 'y'.repeat(16) })).statusCode).toBe(200)
    })

    it('refuses plain http base URLs in production only', async () => {
      t = await openTestApp(target)
      expect((await enroll(t, { authority: 'r.example', baseUrl: 'http://127.0.0.1:8080' })).statusCode).toBe(200)
      const config = loadConfig({
        NODE_ENV: 'production',
        WEBHOOK_SECRET: 'production-secret-0123456789',
        AUTH_API_KEYS: USER_KEY,
        AUTH_ADMIN_API_KEYS: ADMIN_KEY,
        SECRETS_ENCRYPTION_KEY: Buffer.alloc(32, 1).toString('base64'),
      })
      const { enrollRegistry } = await import('../src/registries/registries.js')
      await expect(
        enrollRegistry(
          { config, deps: t.deps, enrollments: { get: async () => undefined, invalidate() {}, close() {} } },
          'acme',
          {
            authority: 'r.example',
            baseUrl: 'http://r.example',
          },
        ),
      ).rejects.toMatchObject({ code: 'VALIDATION_ERROR' })
    })
  })

  it('re-seals enrollment secrets with the current key after a rotation, keeping them usable', async () => {
    t = await openTestApp(target)
    await enroll(t, { authority: 'reg.example', tenantId: 'acme', webhookSecret: SECRET })
    const rotated = createSecretKeyring(new Uint8Array(32).fill(42), [t.deps.secrets.current])
    expect(await resealEnrollmentSecrets({ ...t.deps, secrets: rotated })).toBe(1)
    const sealed = (await t.store.getEnrollment('reg.example'))?.webhookSecretSealed as string
    expect(isSealedWithCurrentKey(rotated, sealed)).toBe(true)
    expect(openSecret(createSecretKeyring(rotated.current), sealed, enrollmentSecretContext('reg.example'))).toBe(
      SECRET,
    )
    expect(await resealEnrollmentSecrets({ ...t.deps, secrets: rotated })).toBe(0)
  })

  it('re-seals a read credential with the current key after a rotation, keeping it usable', async () => {
    t = await openTestApp(target)
    await enroll(t, { authority: 'reg.example', tenantId: 'acme', readCredential: READ_CREDENTIAL })
    const rotated = createSecretKeyring(new Uint8Array(32).fill(42), [t.deps.secrets.current])
    expect(await resealEnrollmentSecrets({ ...t.deps, secrets: rotated })).toBe(1)
    const sealed = (await t.store.getEnrollment('reg.example'))?.readCredentialSealed as string
    expect(isSealedWithCurrentKey(rotated, sealed)).toBe(true)
    expect(openSecret(createSecretKeyring(rotated.current), sealed, readCredentialContext('reg.example'))).toBe(
      READ_CREDENTIAL,
    )
    expect(await resealEnrollmentSecrets({ ...t.deps, secrets: rotated })).toBe(0)
  })
})
