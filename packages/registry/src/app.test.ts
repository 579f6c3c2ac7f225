/**
 * buildApp wiring that only shows with optional features on: the OpenAPI document must render with the admin
 * routes mounted (their `security` requirement names a scheme the document declares).
 */
import { afterEach, describe, expect, it } from 'vitest'
import { createTestRegistry, type TestRegistry } from '../test/support/registry-harness.js'
import { TRUST_CONFIG } from '../test/support/trust.js'

let registry: TestRegistry | undefined
afterEach(async () => {
  await registry?.close()
  registry = undefined
})

describe('GET /openapi.json', () => {
  it('renders with admin tokens, lifecycle and the log on, declaring the adminBearer scheme the admin routes use', async () => {
    registry = await createTestRegistry({
      config: {
        ...TRUST_CONFIG,
        lifecycle: { enabled: true },
        auth: { admin_tokens: ['admin-token-0123456789abcdef'] },
      },
    })
    const answer = await registry.app.inject({ method: 'GET', url: '/openapi.json' })
    expect(answer.statusCode).toBe(200)
    const document = answer.json() as {
      components: { securitySchemes: Record<string, unknown> }
      paths: Record<string, Record<string, { security?: unknown }>>
    }
    expect(document.components.securitySchemes['adminBearer']).toMatchObject({ type: 'http', scheme: 'bearer' })
    expect(document.paths['/admin/log/verify']?.['post']?.security).toEqual([{ adminBearer: [] }])
    const lifecycleAdmin = Object.entries(document.paths).find(([path]) => path.startsWith('/admin/contexts/'))
    expect(lifecycleAdmin?.[1]['post']?.security).toEqual([{ adminBearer: [] }])
  })
})
