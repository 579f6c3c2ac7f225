/** The registry-state block's reading of real signed envelopes, and of malformed ones (shown as absent). */
import { describe, expect, it } from 'vitest'
import { authorityOf, readRegistryState } from './registry-state.js'
import { FIXTURE_CTX_ID, signedEnvelope } from '../../test/support/signed-envelope.js'

const CTX = FIXTURE_CTX_ID
const PREVIOUS = 'acdp://registry.example.com/0b7c6d1e-2f3a-4b5c-8d9e-0f1a2b3c4d5e'

const envelope = (extra: Record<string, unknown>, registryState: unknown) =>
  signedEnvelope('state', {
    content: { visibility: 'public', ...extra },
    envelope: { registry_state: registryState, registry_receipt: { created_at: '2026-06-12T09:00:00.250Z' } },
  })

describe('readRegistryState', () => {
  it('reads status, version, lineage, times and visibility of a signed context', () => {
    const view = readRegistryState(envelope({ supersedes: PREVIOUS }, { status: 'superseded' }))
    expect(view).toEqual({
      status: 'superseded',
      version: expect.any(Number),
      lineageId: `lin:sha256:${'1'.repeat(64)}`,
      authority: 'registry.example.com',
      createdAt: '2026-06-12T09:00:00.000Z',
      registeredAt: '2026-06-12T09:00:00.250Z',
      visibility: 'public',
      supersedes: PREVIOUS,
    })
    expect(Number.isInteger(view.version)).toBe(true)
  })

  it('shows a malformed registry state and body members as unknown or absent, never as their raw values', () => {
    expect(readRegistryState(envelope({}, 'active')).status).toBe('unknown')
    expect(readRegistryState(envelope({}, { status: 7 })).status).toBe('unknown')
    const view = readRegistryState({
      body: { ctx_id: 'not-a-ctx-id', version: '2', supersedes: 3 },
      registry_receipt: [],
    })
    expect(view).toMatchObject({
      authority: null,
      version: null,
      supersedes: null,
      registeredAt: null,
      lineageId: null,
    })
    expect(readRegistryState(null)).toMatchObject({ status: 'unknown', version: null })
  })

  it('takes the authority from the ctx_id', () => {
    expect(authorityOf(CTX)).toBe('registry.example.com')
    expect(authorityOf('urn:x')).toBeNull()
  })
})
