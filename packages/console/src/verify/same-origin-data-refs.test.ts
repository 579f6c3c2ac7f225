/**
 * The browser's DataRef client: the console's own origin fetched without credentials, anything else — another
 * origin, a redirect off the origin, a body over the cap — refused, a cross-origin refusal marked so the inspector
 * can show it as not available rather than failed.
 */
import { isProtocolError } from '@acdp/protocol/verify'
import { describe, expect, it } from 'vitest'
import { NOT_FETCHABLE, sameOriginDataRefClient } from './same-origin-data-refs.js'

const ORIGIN = 'http://127.0.0.1:8080'

function answering(body: Uint8Array<ArrayBuffer>, finalUrl?: string) {
  const requests: Array<{ url: string; init: RequestInit | undefined }> = []
  const fetchImpl: typeof fetch = async (input, init) => {
    requests.push({ url: String(input), init })
    return Object.defineProperty(new Response(body, { status: 200, headers: { 'content-type': 'text/csv' } }), 'url', {
      value: finalUrl ?? String(input),
    })
  }
  return { fetchImpl, requests }
}

async function refusal(promise: Promise<unknown>) {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(isProtocolError(error)).toBe(true)
  return error as { code: string; details?: Record<string, unknown>; message: string }
}

describe('sameOriginDataRefClient', () => {
  it("fetches the console's origin without credentials and hands back status, headers, bytes and URL", async () => {
    const { fetchImpl, requests } = answering(new TextEncoder().encode('a,b'))
    const answer = await sameOriginDataRefClient(ORIGIN, fetchImpl).request(`${ORIGIN}/data.csv`)
    expect(answer).toMatchObject({ status: 200, url: `${ORIGIN}/data.csv`, headers: { 'content-type': 'text/csv' } })
    expect(new TextDecoder().decode(answer.body)).toBe('a,b')
    expect(requests).toEqual([{ url: `${ORIGIN}/data.csv`, init: { credentials: 'omit', redirect: 'follow' } }])
  })

  it('refuses another origin without a request, marked not fetchable', async () => {
    const { fetchImpl, requests } = answering(new Uint8Array())
    const error = await refusal(sameOriginDataRefClient(ORIGIN, fetchImpl).request('http://127.0.0.1:9090/data.csv'))
    expect(error.code).toBe('outbound_refused')
    expect(error.details).toEqual({ reason: NOT_FETCHABLE })
    expect(error.message).toContain("the browser may fetch only http://127.0.0.1:8080 (CSP connect-src 'self')")
    expect(requests).toEqual([])
  })

  it('refuses an answer redirected off the origin, and a body over 1 MiB', async () => {
    const redirected = answering(new Uint8Array(3), 'https://elsewhere.example/data.csv')
    const off = await refusal(sameOriginDataRefClient(ORIGIN, redirected.fetchImpl).request(`${ORIGIN}/data.csv`))
    expect(off.message).toContain('https://elsewhere.example/data.csv is not on the console')
    const large = answering(new Uint8Array(1024 * 1024 + 1))
    const big = await refusal(sameOriginDataRefClient(ORIGIN, large.fetchImpl).request(`${ORIGIN}/big.bin`))
    expect(big).toMatchObject({ code: 'outbound_failed', details: { reason: 'body_too_large' } })
  })
})
