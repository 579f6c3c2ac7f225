/**
 * TypeBox's schema compiler in a browser: imported with the bundle (a bundle has no synchronous loader to defer
 * it with). The browser twin of `typebox-compile-platform.ts`; the package.json "browser" map swaps the build
 * output.
 */
import * as TypeBoxCompile from 'typebox/compile'

/** The `typebox/compile` module. */
export function typeBoxCompile(): typeof TypeBoxCompile {
  return TypeBoxCompile
}
