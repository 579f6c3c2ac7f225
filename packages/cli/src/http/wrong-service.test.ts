import { describe, expect, it } from 'vitest'
import { CliError, EXIT } from '../exit-codes.js'
import { findWrongService, guardRegistryCalls } from './wrong-service.js'

const controlPlane404 = JSON.stringify({ statusCode: 404, errorCode: 'not_found', message: 'Route not found' })
const registry404 = JSON.stringify({ error: { code: 'context_not_found', message: 'no such context' } })

/** A fetch answering `status` with `text` for every URL, recording the URLs. */
function answering(status: number, text: string) {
  const urls: string[] = []
  const fetch: typeof globalThis.fetch = async (input) => {
    urls.push(String(input))
    return new Response(text, { status })
  }
  return { fetch, urls }
}

describe('guardRegistryCalls', () => {
  it('refuses a control-plane error answer to a registry call as wrong_service, naming the registry URL', async () => {
    const guard = guardRegistryCalls(answering(404, controlPlane404), ['http://127.0.0.1:3001/'])
    const failure = await guard.io.fetch('http://127.0.0.1:3001/contexts/x').catch((error: unknown) => error)
    expect(failure).toBeInstanceOf(CliError)
    expect(failure).toMatchObject({ code: 'wrong_service', exitCode: EXIT.failure })
    expect((failure as Error).message).toContain('http://127.0.0.1:3001 answered like an ACDP control plane')
    expect(guard.detected()).toBe(failure)
  })

  it("passes the registry's own errors, 2xx answers and requests to other origins untouched", async () => {
    const registryError = guardRegistryCalls(answering(404, registry404), ['http://127.0.0.1:3000'])
    expect((await registryError.io.fetch('http://127.0.0.1:3000/contexts/x')).status).toBe(404)
    const ok = guardRegistryCalls(answering(200, controlPlane404), ['http://127.0.0.1:3000'])
    expect((await ok.io.fetch('http://127.0.0.1:3000/contexts/x')).status).toBe(200)
    const elsewhere = guardRegistryCalls(answering(404, controlPlane404), ['http://127.0.0.1:3000'])
    // Another port is another service: a prefix match on the text would take :30001 for :3000.
    const other = await elsewhere.io.fetch('http://127.0.0.1:30001/contexts/x')
    expect(other.status).toBe(404)
    // The caller still reads the whole body of a passed error answer.
    expect(await other.text()).toBe(controlPlane404)
    expect(registryError.detected() ?? ok.detected() ?? elsewhere.detected()).toBeUndefined()
  })
})

describe('findWrongService', () => {
  it('finds the wrong_service error however deep the SDK or a command wrapped it', () => {
    const wrong = new CliError(EXIT.failure, 'wrong_service', 'x answered like an ACDP control plane')
    const wrapped = new Error('no answer', {
      cause: new CliError(EXIT.unreachable, 'unreachable', 'u', { cause: wrong }),
    })
    expect(findWrongService(wrapped)).toBe(wrong)
    expect(findWrongService(new Error('other', { cause: new Error('deeper') }))).toBeUndefined()
    expect(findWrongService(undefined)).toBeUndefined()
  })
})
