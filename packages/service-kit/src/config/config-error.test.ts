import { describe, expect, it } from 'vitest'
import { ConfigError } from './config-error.js'

describe('ConfigError', () => {
  it('is the line itself when a server stops at its first refusal', () => {
    const error = new ConfigError('registry.port: must be <= 65535 (got 70000)')
    expect(error).toBeInstanceOf(Error)
    expect(error.name).toBe('ConfigError')
    expect(error.message).toBe('registry.port: must be <= 65535 (got 70000)')
    expect(error.problems).toEqual(['registry.port: must be <= 65535 (got 70000)'])
  })

  it('lists every refusal of a run under one heading, one line each', () => {
    const error = new ConfigError(['PORT must be an integer, got "x"', 'ALG must be HS256 or EdDSA, got "none"'])
    expect(error.message).toBe(
      'invalid configuration:\n  - PORT must be an integer, got "x"\n  - ALG must be HS256 or EdDSA, got "none"',
    )
    expect(error.problems).toEqual(['PORT must be an integer, got "x"', 'ALG must be HS256 or EdDSA, got "none"'])
  })

  it('lists a single refusal of a run under the heading too', () => {
    expect(new ConfigError(['PORT must be an integer, got "x"']).message).toBe(
      'invalid configuration:\n  - PORT must be an integer, got "x"',
    )
  })
})
