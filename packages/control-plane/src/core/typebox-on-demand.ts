/**
 * TypeBox's compiler and value modules (`typebox/compile`, `typebox/value`, with Fastify's TypeBox validator
 * compiler over them), loaded on first use instead of at startup (docs/performance/journal.md "Idle memory (RSS)"):
 * together ≈ 3.5 MB of heap that an idle instance never touches, since route validators are compiled on each
 * route's first request (http/lazy-schema-compilers.ts) and DOMAIN_PACKS files are the only other thing validated.
 * Both uses are synchronous, so the modules are loaded with `require`, which loads an ES module synchronously on
 * Node 24 and returns the same instance an `import` would.
 */
import { createRequire } from 'node:module'
import type { TypeBoxValidatorCompiler } from '@fastify/type-provider-typebox'
import type * as TypeBoxValue from 'typebox/value'

const require = createRequire(import.meta.url)

/** The `typebox/value` module, loaded on the first call. */
export function typeBoxValue(): typeof TypeBoxValue {
  return require('typebox/value') as typeof TypeBoxValue
}

/** Fastify's TypeBox validator compiler; its module (and TypeBox's compiler) is loaded on the first schema compiled. */
export const typeBoxValidatorCompilerOnDemand: typeof TypeBoxValidatorCompiler = (route) =>
  (
    require('@fastify/type-provider-typebox') as { TypeBoxValidatorCompiler: typeof TypeBoxValidatorCompiler }
  ).TypeBoxValidatorCompiler(route)
