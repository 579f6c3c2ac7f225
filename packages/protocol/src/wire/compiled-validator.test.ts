import { Type } from 'typebox'
import { describe, expect, it } from 'vitest'
import { compiledValidator } from './compiled-validator.js'

describe('compiledValidator', () => {
  it('compiles a schema once and checks values against it', () => {
    const schema = Type.Object({ n: Type.Integer() }, { additionalProperties: false })
    const validator = compiledValidator(schema)
    expect(compiledValidator(schema)).toBe(validator)
    expect(validator.Check({ n: 1 })).toBe(true)
    expect(validator.Check({ n: 1, extra: true })).toBe(false)
    expect(compiledValidator(Type.Object({ n: Type.Integer() }))).not.toBe(validator)
  })
})
