import { TypeBoxValidatorCompiler } from '@fastify/type-provider-typebox'
import Fastify from 'fastify'
import { Type } from 'typebox'
import { describe, expect, it } from 'vitest'
import { buildLazySerializer, compileOnFirstUse } from './lazy-schema-compilers.js'

describe('compileOnFirstUse', () => {
  it('compiles nothing until the first call, then compiles once and reuses the result', () => {
    const compiled: string[] = []
    const lazy = compileOnFirstUse((route: { url: string }) => {
      compiled.push(route.url)
      return (input: number) => `${route.url}:${input}`
    })
    const first = lazy({ url: '/a' })
    const second = lazy({ url: '/b' })
    expect(compiled).toEqual([])
    expect(first(1)).toBe('/a:1')
    expect(first(2)).toBe('/a:2')
    expect(second(3)).toBe('/b:3')
    expect(compiled).toEqual(['/a', '/b'])
  })
})

describe('an app with lazily compiled schemas', () => {
  it('validates requests and serializes responses by their schemas, as eager compilation does', async () => {
    const app = Fastify({ schemaController: { compilersFactory: { buildSerializer: buildLazySerializer } } })
    app.setValidatorCompiler(compileOnFirstUse(TypeBoxValidatorCompiler))
    app.post(
      '/echo',
      {
        schema: {
          body: Type.Object({ n: Type.Integer({ minimum: 1 }) }),
          response: { 200: Type.Object({ n: Type.Integer() }) },
        },
      },
      async (request) => ({ ...(request.body as { n: number }), secret: 'not in the schema' }),
    )
    await app.ready()
    const ok = await app.inject({ method: 'POST', url: '/echo', payload: { n: 2 } })
    expect(ok.statusCode).toBe(200)
    expect(ok.body).toBe('{"n":2}')
    expect((await app.inject({ method: 'POST', url: '/echo', payload: { n: 0 } })).statusCode).toBe(400)
    expect((await app.inject({ method: 'POST', url: '/echo', payload: { n: 3 } })).body).toBe('{"n":3}')
    await app.close()
  })
})
