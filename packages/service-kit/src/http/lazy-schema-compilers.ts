/**
 * Route schemas compiled on a route's first request instead of at startup (docs/performance/journal.md "Idle memory").
 *
 * Fastify compiles a validator for every request part and a serializer for every response status of every route
 * when the app starts. Each is generated code (TypeBox `Compile`, fast-json-stringify), and an idle instance
 * holds all of them although most routes of an optional feature never see a request: compiling on first use
 * saves ≈ 5 MB of resident memory at idle. Behaviour is unchanged (same compilers, same schemas, each compiled at
 * most once); the first request of a route pays its compilation (about a millisecond), and a schema the
 * compiler refuses fails that route's first request instead of the startup, so every route's schemas are
 * compiled by the tests (the fuzzer's seeds reach every route).
 */
import { createRequire } from 'node:module'
import type { SerializerSelector } from '@fastify/fast-json-stringify-compiler'

const require = createRequire(import.meta.url)

/** Wraps a schema compiler so that each route part is compiled on its first call, then reused. */
export function compileOnFirstUse<Route, Input, Output>(
  compile: (route: Route) => (input: Input) => Output,
): (route: Route) => (input: Input) => Output {
  return (route) => {
    let compiled: ((input: Input) => Output) | undefined
    return (input) => {
      compiled ??= compile(route)
      return compiled(input)
    }
  }
}

type SerializerFactory = ReturnType<typeof SerializerSelector>

/**
 * Fastify's own response serializer factory (fast-json-stringify), its compilations deferred. The compiler's
 * module is loaded on the first serializer compiled too: it brings fast-json-stringify and ajv (≈ 1.5 MB of heap),
 * which Fastify would otherwise load at startup.
 */
export const buildLazySerializer: SerializerFactory = (externalSchemas, options) => {
  let factory: ReturnType<SerializerFactory> | undefined
  return compileOnFirstUse((route) => {
    factory ??= (
      require('@fastify/fast-json-stringify-compiler') as { SerializerSelector: typeof SerializerSelector }
    ).SerializerSelector()(externalSchemas, options)
    return factory(route)
  })
}
