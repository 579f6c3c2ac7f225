/**
 * TypeBox's schema compiler on Node, loaded on the first schema compiled rather than at import
 * (docs/performance/journal.md "Idle memory (RSS)"): `typebox/compile` brings `typebox/value` with it (≈ 3 MB of heap),
 * and a service that only starts, or only serves routes that never parse a closed wire shape, never needs it.
 * A validator is compiled synchronously where it is first used, so the module is loaded with `require`, which
 * loads an ES module synchronously on Node 24 (same module instance as an `import` of it). A browser bundle swaps
 * in `typebox-compile-platform.browser.ts` (package.json "browser" map), which imports it statically.
 */
import { createRequire } from 'node:module'
import type * as TypeBoxCompile from 'typebox/compile'

let loaded: typeof TypeBoxCompile | undefined

/** The `typebox/compile` module, loaded on the first call. */
export function typeBoxCompile(): typeof TypeBoxCompile {
  loaded ??= createRequire(import.meta.url)('typebox/compile') as typeof TypeBoxCompile
  return loaded
}
