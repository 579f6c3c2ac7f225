/**
 * The protocol's registry reader answered through the control plane's relay: the search goes to the context's
 * registry only, a registry's failure keeps its status (so the lookup says "not looked up"), revocation contexts
 * come through the federation proxy, and a producer with nothing revoked has none.
 */
import { createProducerKey } from '@acdp/protocol'
import { describe, expect, it } from 'vitest'
import { type ApiClient, ApiError } from '../api/client.js'
import { browserKeyResolver } from './inspect-context.js'
import { lookUpRevocations, relayedRegistryReader } from './revocation-lookup.js'

type Call = { path: string; query: Record<string, unknown> | undefined }

function relay(answer: (call: Call) => unknown): { client: ApiClient; calls: Call[] } {
  const calls: Call[] = []
  const client = {
    get: async (path: string, query?: Record<string, unknown>) => {
      calls.push({ path, query })
      const result = answer({ path, query })
      if (result instanceof Error) throw result
      return result
    },
  } as unknown as ApiClient
  return { client, calls }
}

describe('relayedRegistryReader', () => {
  it("relays the search to the context's registry only and hands back its matches", async () => {
    const { client, calls } = relay(() => ({
      registries: [
        { authority: 'localhost', outcome: 'ok', matches: [{ ctx_id: 'acdp://localhost/x' }], next_cursor: null },
      ],
    }))
    const answer = await relayedRegistryReader(client, 'localhost')(
      'localhost',
      '/contexts/search?type=key-revocation&agent_id=did%3Akey%3Az1&limit=50',
    )
    expect(answer).toEqual({ status: 200, body: { matches: [{ ctx_id: 'acdp://localhost/x' }] } })
    expect(calls).toEqual([
      {
        path: '/contexts/search',
        query: { type: 'key-revocation', agent_id: 'did:key:z1', limit: '50', registry: 'localhost' },
      },
    ])
  })

  it("keeps a registry's failure status and the control plane's own", async () => {
    const failing = relay(() => ({
      registries: [
        { authority: 'localhost', outcome: 'error', matches: [], error: { code: 'x', message: 'm', status: 501 } },
      ],
    }))
    expect(await relayedRegistryReader(failing.client, 'localhost')('', '/contexts/search?type=t')).toEqual({
      status: 501,
      body: undefined,
    })
    const refused = relay(() => new ApiError(404, 'NOT_FOUND', 'no such registry'))
    expect(await relayedRegistryReader(refused.client, 'localhost')('', '/contexts/search?type=t')).toEqual({
      status: 404,
      body: undefined,
    })
    const other = relay(() => ({ registries: [{ authority: 'elsewhere', outcome: 'ok', matches: [] }] }))
    expect(await relayedRegistryReader(other.client, 'localhost')('', '/contexts/search?type=t')).toEqual({
      status: 404,
      body: undefined,
    })
  })

  it('retrieves a context through the federation proxy, and answers nothing else', async () => {
    const { client, calls } = relay(() => ({ body: { ctx_id: 'acdp://localhost/x' } }))
    const read = relayedRegistryReader(client, 'localhost')
    expect(await read('', `/contexts/${encodeURIComponent('acdp://localhost/x')}`)).toEqual({
      status: 200,
      body: { body: { ctx_id: 'acdp://localhost/x' } },
    })
    expect(calls[0]!.path).toBe('/contexts/acdp%3A%2F%2Flocalhost%2Fx')
    expect(await read('', '/log/proof?x=1')).toEqual({ status: 404, body: undefined })
    expect(calls).toHaveLength(1)
  })
})

describe('lookUpRevocations', () => {
  it('finds none for a producer with nothing revoked, and says how many it checked', async () => {
    const key = createProducerKey()
    const { client } = relay(() => ({ registries: [{ authority: 'localhost', outcome: 'ok', matches: [] }] }))
    const lookup = await lookUpRevocations(client, 'localhost', key.did, browserKeyResolver())
    expect(lookup.revocations).toEqual([])
    expect(lookup.note).toBe(`0 verified key revocation(s) by ${key.did} on this registry`)
  })

  it('says the revocations were not looked up when the registry offers no search', async () => {
    const { client } = relay(() => new ApiError(501, 'NOT_IMPLEMENTED', 'no search'))
    const lookup = await lookUpRevocations(client, 'localhost', 'did:key:z1', browserKeyResolver())
    expect(lookup).toEqual({ revocations: undefined, note: 'revocations not looked up (search answered 501)' })
  })
})
