import { describe, expect, it } from 'vitest'
import { ProtocolError } from '../errors.js'
import { createRegistryJsonReader, MAX_REGISTRY_JSON_BYTES } from './registry-json.js'

const answering =
  (status: number, text: string): typeof fetch =>
  async () =>
    new Response(text, { status })

describe('createRegistryJsonReader', () => {
  it('returns a 2xx body parsed strictly and a non-2xx answer as its status alone', async () => {
    const ok = createRegistryJsonReader({ fetch: answering(200, '{"a":1}') })
    expect(await ok('http://registry.test/', '/log/checkpoint')).toEqual({ status: 200, body: { a: 1 } })
    const missing = createRegistryJsonReader({ fetch: answering(404, '{"error":{}}') })
    expect(await missing('http://registry.test', '/log/proof')).toEqual({ status: 404, body: undefined })
  })

  it('joins the base URL and the path once', async () => {
    const seen: string[] = []
    const read = createRegistryJsonReader({
      fetch: async (input) => {
        seen.push(String(input))
        return new Response('{}')
      },
    })
    await read('http://registry.test//', '/contexts/search?type=x')
    expect(seen).toEqual(['http://registry.test/contexts/search?type=x'])
  })

  it('refuses a duplicate-key body, an oversized answer and a transport failure with ProtocolErrors', async () => {
    const duplicate = createRegistryJsonReader({ fetch: answering(200, '{"a":1,"a":2}') })
    await expect(duplicate('http://registry.test', '/x')).rejects.toMatchObject({ code: 'malformed_input' })
    const large = createRegistryJsonReader({ fetch: answering(200, ' '.repeat(MAX_REGISTRY_JSON_BYTES + 1)) })
    await expect(large('http://registry.test', '/x')).rejects.toMatchObject({ code: 'outbound_too_large' })
    const down = createRegistryJsonReader({
      fetch: async () => {
        throw new TypeError('fetch failed')
      },
    })
    await expect(down('http://registry.test', '/x')).rejects.toMatchObject({
      code: 'outbound_failed',
      details: { url: 'http://registry.test/x' },
    })
  })

  it("passes the caller's policy refusal through unchanged", async () => {
    const refusal = new ProtocolError('outbound_refused', 'link-local address')
    const read = createRegistryJsonReader({
      fetch: async () => {
        throw refusal
      },
    })
    await expect(read('https://169.254.169.254', '/x')).rejects.toBe(refusal)
  })
})
