/**
 * The one loader that owns the conformance fixture path. Suites read fixtures at test time from
 * `../shared/acdp-spec/schemas/conformance/` (relative to the repository root) and never copy
 * fixture data into assertions.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

export const CONFORMANCE_DIR = fileURLToPath(new URL('../../../shared/acdp-spec/schemas/conformance/', import.meta.url))
export const SPEC_DIR = fileURLToPath(new URL('../../../shared/acdp-spec/', import.meta.url))

/** True when the shared spec folder is beside the repository. Suites skip with a printed reason otherwise. */
export const hasConformance = existsSync(CONFORMANCE_DIR)

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- fixtures are untyped JSON read at test time
export type Fixture = { id: string; description: string; file: string; [key: string]: any }

/** Every fixture whose file name starts with `prefix` (e.g. `'can-'`, `'rcpt-001'`), sorted by file name. */
export function loadFixtures(prefix: string): Fixture[] {
  if (!hasConformance) return []
  return readdirSync(CONFORMANCE_DIR)
    .filter((name) => name.endsWith('.json') && name.startsWith(prefix))
    .sort()
    .map((file) => ({ ...JSON.parse(readFileSync(CONFORMANCE_DIR + file, 'utf8')), file }))
}

/** Raw text of a fixture file, for byte-level work that must not go through JSON.parse first. */
export function readFixtureText(file: string): string {
  return readFileSync(CONFORMANCE_DIR + file, 'utf8')
}

/** Prints why a conformance suite is skipped when the spec folder is absent. */
export function reportMissingConformance(suite: string): void {
  if (!hasConformance) console.warn(`[${suite}] skipped: conformance folder not found at ${CONFORMANCE_DIR}`)
}
