import { describe, expect, it } from 'vitest'
import { fetchContext } from './fetch-context.js'
import { MAX_SDK_RESPONSE_BYTES } from './registry-http.js'

const CTX = 'acdp://registry.example.com/9f1d4f10-7b2a-4c3e-8d5b-2a6f81c4e9b7'

function answering(status: number, text: string | Uint8Array, seen: string[] = []): typeof globalThis.fetch {
  return async (input) => {
    seen.push(String(input))
    return new Response(text, { status, headers: { 'content-type': 'application/acdp+json' } })
  }
}

describe('fetchContext', () => {
  it('requests the percent-encoded ctx_id as one path segment and returns the envelope', async () => {
    const seen: string[] = []
    const envelope = { body: { ctx_id: CTX }, registry_state: { status: 'active' }, registry_receipt: { a: 1 } }
    const fetched = await fetchContext('https://registry.example.com/', CTX, {
      fetch: answering(200, JSON.stringify(envelope), seen),
    })
    expect(seen).toEqual([`https://registry.example.com/contexts/${encodeURIComponent(CTX)}`])
    expect(fetched.envelope).toEqual(envelope)
  })

  it('reports a registry error envelope as request_rejected with its code', async () => {
    const fetch = answering(404, JSON.stringify({ error: { code: 'not_found', message: 'no such context' } }))
    await expect(fetchContext('https://r.example', CTX, { fetch })).rejects.toMatchObject({
      code: 'request_rejected',
      message: 'not_found: no such context',
      details: { status: 404, code: 'not_found' },
    })
  })

  it('names a non-JSON error answer by its status', async () => {
    await expect(fetchContext('https://r.example', CTX, { fetch: answering(502, '<html>') })).rejects.toMatchObject({
      code: 'request_rejected',
      details: { status: 502, code: 'http_502' },
    })
  })

  it.each([
    ['not JSON', 'nope', 'malformed_input'],
    ['a JSON array', '[]', 'malformed_input'],
    ['an envelope without body', '{"registry_state":{}}', 'malformed_input'],
    ['a duplicate member name', '{"body":{"title":"a","title":"b"}}', 'malformed_input'],
    ['invalid UTF-8', new Uint8Array([0x7b, 0xff, 0x7d]), 'malformed_input'],
  ])('refuses an answer that is %s with %s', async (_case, text, code) => {
    await expect(fetchContext('https://r.example', CTX, { fetch: answering(200, text) })).rejects.toMatchObject({
      code,
    })
  })

  it('stops reading an oversized answer with outbound_too_large', async () => {
    const huge = new Uint8Array(MAX_SDK_RESPONSE_BYTES + 1).fill(0x20)
    await expect(fetchContext('https://r.example', CTX, { fetch: answering(200, huge) })).rejects.toMatchObject({
      code: 'outbound_too_large',
    })
  })
})
