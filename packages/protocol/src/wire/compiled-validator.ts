/**
 * One compiled TypeBox validator per schema, compiled on the schema's first check (not at import: the compiler
 * is loaded on demand, typebox-compile-platform.ts) and reused for every later one.
 */
import type { TSchema } from 'typebox'
import type { Validator } from 'typebox/compile'
import { typeBoxCompile } from './typebox-compile-platform.js'

const validators = new WeakMap<TSchema, Validator>()

/** The validator of `schema`, compiled the first time it is asked for. */
export function compiledValidator(schema: TSchema): Validator {
  let validator = validators.get(schema)
  if (validator === undefined) {
    validator = typeBoxCompile().Compile(schema) as unknown as Validator
    validators.set(schema, validator)
  }
  return validator
}
