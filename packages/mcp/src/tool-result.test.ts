import { ProtocolError } from '@acdp/protocol'
import { describe, expect, it } from 'vitest'
import { withDeadline } from './call-deadline.js'
import { boundedJson, describeFailure, errorResult, jsonResult, ToolError } from './tool-result.js'

describe('tool results', () => {
  it('caps the JSON text of a result and says by how much', () => {
    expect(() => boundedJson({ text: 'x'.repeat(100) }, 64)).toThrow(/over this server's cap of 64/)
    expect(jsonResult({ a: 1 }, 64)).toEqual({
      content: [{ type: 'text', text: '{\n  "a": 1\n}' }],
      structuredContent: { a: 1 },
    })
  })

  it('names the registry code of a rejected request, the policy code of a refusal, and flattens lines', () => {
    const rejected = new ProtocolError('request_rejected', 'not_found: no such context', {
      details: { status: 404, code: 'not_found' },
    })
    expect(describeFailure(rejected)).toEqual({ code: 'not_found', message: 'no such context' })
    const refused = new ProtocolError('request_rejected', 'schema_violation: body refused', {
      details: {
        status: 400,
        code: 'schema_violation',
        details: { errors: [{ path: '/title', message: 'required' }] },
      },
    })
    expect(describeFailure(refused)).toEqual({ code: 'schema_violation', message: 'body refused; /title: required' })
    expect(describeFailure(new ProtocolError('outbound_refused', 'link-local\naddress')).code).toBe('outbound_refused')
    expect(errorResult(new ToolError('x', 'one\ntwo'))).toEqual({
      content: [{ type: 'text', text: 'x: one two' }],
      isError: true,
    })
  })
})

describe('withDeadline', () => {
  it('answers deadline_exceeded when the work ignores its signal, and aborts that signal', async () => {
    let seen: AbortSignal | undefined
    const never = withDeadline(20, undefined, (signal) => {
      seen = signal
      return new Promise(() => {})
    })
    await expect(never).rejects.toMatchObject({ code: 'deadline_exceeded' })
    expect(seen?.aborted).toBe(true)
  })

  it("passes the work's own result and the client's cancellation through", async () => {
    expect(await withDeadline(1000, undefined, async () => 7)).toBe(7)
    const client = new AbortController()
    const running = withDeadline(
      60_000,
      client.signal,
      (signal) => new Promise((_r, reject) => signal.addEventListener('abort', () => reject(new Error('cancelled')))),
    )
    client.abort()
    await expect(running).rejects.toThrow('cancelled')
  })
})
