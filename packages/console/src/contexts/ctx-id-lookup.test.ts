import { describe, expect, it } from 'vitest'
import { parseCtxIdLookup } from './ctx-id-lookup.js'

const GOOD = 'acdp://registry.example/5f0c9a7e-1b2d-4c3e-8f4a-0123456789ab'

describe('parseCtxIdLookup', () => {
  it('accepts a well-formed ctx_id, trimmed', () => {
    expect(parseCtxIdLookup(`  ${GOOD}\n`)).toEqual({ ok: true, ctxId: GOOD })
  })

  it('refuses anything that is not an acdp: id, saying so', () => {
    const result = parseCtxIdLookup('demo-20261124-130904-5c4f6f')
    expect(result.ok).toBe(false)
    expect(!result.ok && result.problem).toContain('start with acdp://')
  })

  it('refuses an empty box', () => {
    expect(parseCtxIdLookup('   ')).toMatchObject({ ok: false })
  })

  it('refuses an acdp: id of the wrong shape (uppercase host, not a uuid v4, missing id)', () => {
    for (const text of [
      'acdp://Registry.example/5f0c9a7e-1b2d-4c3e-8f4a-0123456789ab',
      'acdp://registry.example/5f0c9a7e-1b2d-1c3e-8f4a-0123456789ab',
      'acdp://registry.example/',
      'acdp:registry.example',
    ]) {
      const result = parseCtxIdLookup(text)
      expect(result.ok, text).toBe(false)
      expect(!result.ok && result.problem, text).toContain('not a well-formed ctx_id')
    }
  })

  it('clips a very long refused value in the message', () => {
    const result = parseCtxIdLookup('x'.repeat(500))
    expect(!result.ok && result.problem.length).toBeLessThan(200)
  })
})
