import { Type } from 'typebox'
import * as TypeBoxCompile from 'typebox/compile'
import { describe, expect, it } from 'vitest'
import * as browser from './typebox-compile-platform.browser.js'
import { typeBoxCompile } from './typebox-compile-platform.js'

describe('TypeBox compiler loaded on first use', () => {
  it('is the module instance a static import gets, on Node and in the browser twin', () => {
    expect(typeBoxCompile().Compile).toBe(TypeBoxCompile.Compile)
    expect(browser.typeBoxCompile().Compile).toBe(TypeBoxCompile.Compile)
  })

  it('compiles a schema that checks values', () => {
    const validator = typeBoxCompile().Compile(Type.Object({ n: Type.Integer() }))
    expect(validator.Check({ n: 1 })).toBe(true)
    expect(validator.Check({ n: 'one' })).toBe(false)
  })
})
