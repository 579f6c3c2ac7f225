import { TypeBoxValidatorCompiler } from '@fastify/type-provider-typebox'
import { Type } from 'typebox'
import { Value } from 'typebox/value'
import { describe, expect, it } from 'vitest'
import { typeBoxValidatorCompilerOnDemand, typeBoxValue } from './typebox-on-demand.js'

describe('TypeBox modules loaded on first use', () => {
  it('gives the value module a static import gets', () => {
    expect(typeBoxValue().Value).toBe(Value)
  })

  it('validates as the TypeBox provider compiler does, coercing non-body parts', () => {
    const schema = Type.Object({ n: Type.Integer() })
    for (const httpPart of ['body', 'querystring'] as const) {
      const lazy = typeBoxValidatorCompilerOnDemand({ schema, httpPart, method: 'GET', url: '/' })
      const eager = TypeBoxValidatorCompiler({ schema, httpPart, method: 'GET', url: '/' })
      for (const input of [{ n: 1 }, { n: '2' }, { n: 'x' }]) {
        const [a, b] = [lazy(input), eager(input)] as { value?: unknown; error?: unknown }[]
        expect(a?.value).toEqual(b?.value)
        expect(a?.error === undefined).toBe(b?.error === undefined)
      }
    }
  })
})
