import { describe, expect, it } from 'vitest'
import { admitBody, bodyContractOf } from './body-contract.js'

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
