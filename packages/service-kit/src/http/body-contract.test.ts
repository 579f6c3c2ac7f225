import { describe, expect, it } from 'vitest'
import { admitBody, bodyContractOf, settleUnparsedBody } from './body-contract.js'

const route = (config: { body?: 'none' | 'optional' | 'required' }, schema: { body?: unknown } = {}) => ({
  routeOptions: { config, schema } as never,
  is404: false,
})

describe('body contracts', () => {
  it('derive the contract from config.body, else from a body schema', () => {
    expect(bodyContractOf({ config: { body: 'optional' }, schema: { body: {} } })).toBe('optional')
    expect(bodyContractOf({ schema: { body: {} } })).toBe('required')
    expect(bodyContractOf({})).toBe('none')
  })

  it.each([
    ['none', 0, 'absent'],
    ['none', 2, 'refused'],
    ['optional', 0, 'absent'],
    ['optional', 2, 'parse'],
    ['required', 0, 'parse'],
    ['required', 2, 'parse'],
  ] as const)('a %s route with a %i-byte body: %s', (contract, bytes, expected) => {
    expect(admitBody(route({ body: contract }), bytes)).toBe(expected)
  })

  it('parses a body on an unrouted request, so it keeps its 404', () => {
    expect(admitBody({ ...route({}), is404: true }, 2)).toBe('parse')
  })
})

describe('settleUnparsedBody', () => {
  const request = (body: 'none' | 'optional') => ({ ...route({ body }), method: 'POST' })
  const refusal = (method: string, url: string | undefined) => new Error(`${method} ${url} refused`)

  it('settles an absent body with no value, a refused one with the server error, and leaves the rest', () => {
    const calls: unknown[][] = []
    const done = (...args: unknown[]) => void calls.push(args)
    expect(settleUnparsedBody(request('optional'), 0, done, refusal)).toBe(true)
    expect(settleUnparsedBody(request('none'), 2, done, refusal)).toBe(true)
    expect(settleUnparsedBody(request('optional'), 2, done, refusal)).toBe(false)
    expect(calls).toEqual([[null, undefined], [new Error('POST undefined refused')]])
  })
})
