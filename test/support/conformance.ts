/**
 * The one loader of the ACDP protocol spec's files (conformance fixtures, JSON schemas). Every test that reads a
 * spec file goes through it; suites never copy fixture data into assertions.
 *
 * Where the spec is: `ACDP_SPEC_DIR` when set (it must then exist), else `../shared/acdp-spec` beside the
 * repository root. When neither exists (a bare `git clone`), suites that need it skip and print one line saying how
 * to run them. When it exists, asking for a fixture family that matches no file fails the suite, so a renamed or
 * moved fixture can never turn a suite into one that silently runs nothing.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, it } from 'vitest'

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url))

/** The environment variable naming the spec folder (the one holding `schemas/`). */
export const SPEC_DIR_ENV = 'ACDP_SPEC_DIR'

function resolveSpecDir(): string | undefined {
  const configured = process.env[SPEC_DIR_ENV]
  if (configured !== undefined && configured !== '') {
    const dir = resolve(REPO_ROOT, configured)
    if (!existsSync(join(dir, 'schemas', 'conformance'))) {
      throw new Error(`${SPEC_DIR_ENV}=${configured}: no schemas/conformance/ folder there (unset it to skip)`)
    }
    return dir
  }
  const sibling = resolve(REPO_ROOT, '..', 'shared', 'acdp-spec')
  return existsSync(join(sibling, 'schemas', 'conformance')) ? sibling : undefined
}

/** The spec folder, or undefined when it is not available. */
export const SPEC_DIR: string | undefined = resolveSpecDir()

/** True when the spec is available; suites that need it run only then. */
export const hasConformance = SPEC_DIR !== undefined

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- fixtures are untyped JSON read at test time
export type Fixture = { id: string; description: string; file: string; [key: string]: any }

function specPath(...parts: string[]): string {
  if (SPEC_DIR === undefined) throw new Error(`the ACDP spec is not available (${howToRun()})`)
  return join(SPEC_DIR, ...parts)
}

/**
 * Every fixture whose file name starts with `prefix` (e.g. `'can-'`, `'rcpt-001'`), sorted by file name. Empty
 * when the spec is absent; throws when it is present and nothing matches.
 */
export function loadFixtures(prefix: string): Fixture[] {
  if (SPEC_DIR === undefined) return []
  const dir = specPath('schemas', 'conformance')
  const fixtures = readdirSync(dir)
    .filter((name) => name.endsWith('.json') && name.startsWith(prefix))
    .sort()
    .map((file) => ({ ...JSON.parse(readFileSync(join(dir, file), 'utf8')), file }))
  if (fixtures.length === 0) throw new Error(`no conformance fixture matches "${prefix}" in ${dir}`)
  return fixtures
}

/** File names in the conformance folder (empty when the spec is absent), for families a snapshot may not ship. */
export function listFixtureFiles(): string[] {
  if (SPEC_DIR === undefined) return []
  return readdirSync(specPath('schemas', 'conformance')).filter((name) => name.endsWith('.json'))
}

/** Raw text of a fixture file, for byte-level work that must not go through JSON.parse first. */
export function readFixtureText(file: string): string {
  return readFileSync(specPath('schemas', 'conformance', file), 'utf8')
}

/** A JSON schema of the spec (`schemas/json/<name>`), parsed. */
export function readSpecSchema(name: string): unknown {
  return JSON.parse(readFileSync(specPath('schemas', 'json', name), 'utf8'))
}

function howToRun(): string {
  return `set ${SPEC_DIR_ENV}=/path/to/acdp-spec or put the spec at ${resolve(REPO_ROOT, '..', 'shared', 'acdp-spec')}`
}

/** Prints the one line saying a suite is skipped and how to run it, when the spec is absent. */
export function reportMissingConformance(suite: string): void {
  if (!hasConformance) console.warn(`[${suite}] skipped: the ACDP spec is not available; to run it, ${howToRun()}`)
}

/**
 * `describe` for a suite that needs the spec. When it is absent the factory never runs (it would read fixtures)
 * and one skipped test stands in, so the file still reports the suite instead of failing as empty.
 */
export function describeConformance(name: string, factory: () => void): void {
  if (hasConformance) describe(name, factory)
  else it.skipIf(true)(`${name} (needs the ACDP spec)`, () => {})
}
