import { describe, expect, it } from 'vitest'
import { ProtocolError } from '../errors.js'
import type { OutboundClient, OutboundRequest } from '../outbound/client.js'
import { fetchContext } from './fetch-context.js'
import { fetchThroughOutbound } from './outbound-fetch.js'

/** A client recording its requests and answering with `status` and `text`. */
function client(status: number, text: string, seen: Array<{ url: string; init: OutboundRequest }> = []) {
  const request: OutboundClient['request'] = async (url, init = {}) => {
    seen.push({ url: String(url), init })
    return {
      status,
      headers: { 'content-type': 'application/json' },
      body: new TextEncoder().encode(text),
      url: String(url),
    }
  }
  return { request }
}

describe('fetchThroughOutbound', () => {
  it('sends the SDK request through the client, headers and signal included, and returns its answer', async () => {
    const seen: Array<{ url: string; init: OutboundRequest }> = []
    const envelope = { body: { ctx_id: 'acdp://r.example/x' } }
    const fetched = await fetchContext('https://r.example', 'acdp://r.example/x', {
      fetch: fetchThroughOutbound(client(200, JSON.stringify(envelope), seen)),
    })
    expect(fetched.envelope).toEqual(envelope)
    expect(seen).toHaveLength(1)
    expect(seen[0]).toMatchObject({
      url: `https://r.example/contexts/${encodeURIComponent('acdp://r.example/x')}`,
      init: { method: 'GET', headers: { accept: 'application/acdp+json, application/json' } },
    })
    expect(seen[0]!.init.signal).toBeInstanceOf(AbortSignal)
  })

  it("keeps the client's policy errors as they are (a refused address stays outbound_refused)", async () => {
    const refusing = {
      request: async () => {
        throw new ProtocolError('outbound_refused', 'loopback address', { details: { reason: 'loopback' } })
      },
    }
    await expect(
      fetchContext('https://r.example', 'acdp://r.example/x', { fetch: fetchThroughOutbound(refusing) }),
    ).rejects.toMatchObject({ code: 'outbound_refused' })
  })

  it('answers a 204 without a body and refuses methods the client does not send', async () => {
    const fetch = fetchThroughOutbound(client(204, ''))
    expect((await fetch('https://r.example/x')).status).toBe(204)
    await expect(fetch('https://r.example/x', { method: 'DELETE' })).rejects.toThrow(TypeError)
  })
})
