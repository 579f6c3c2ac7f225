/**
 * Each workspace package declares what it imports, so it would install on its own (docs/dependencies.md):
 *
 * - what its sources (src/, bin/, and for the examples every script) import at runtime is one of its
 *   `dependencies` or `peerDependencies` (an optional peer too: an adapter imports the framework the app brings);
 * - what a source imports for its types only (`import type`, `export type … from`, `typeof import('x')`,
 *   `declare module 'x'`) is one as well in a published package, because `tsc` keeps those imports in the
 *   `.d.ts` files its `types` export points at, and a consumer's typecheck resolves them from the consumer's
 *   install. In a private package (the console, the examples) nothing is published and the types are erased, so
 *   a `devDependency` is enough;
 * - what its tests and build configuration import is declared by the package itself (any of the three), so its
 *   tests run from its own install too; the root's devDependencies (the tools every package shares) do not
 *   count, which is why each package lists `vitest`;
 * - everything it declares is imported by some file of it, or listed in `NOT_IMPORTED` with the reason.
 *
 * A package that ships no type declarations (`pg`) is typed by its DefinitelyTyped package (`@types/pg`): a file
 * importing it imports that one for its types, under the rules above. A published package whose sources import
 * `pg` therefore lists `@types/pg` in its dependencies, as the TypeScript handbook's "Publishing" chapter says
 * of declarations that depend on another package's types.
 *
 * Specifiers are read from each file's syntax tree (test/support/import-specifiers.ts), never from comments or
 * strings.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { packageNameOf, specifiersOf, type Specifier } from './support/import-specifiers.js'

const ROOT = fileURLToPath(new URL('..', import.meta.url))

interface Manifest {
  name: string
  private?: boolean
  workspaces?: string[]
  dependencies?: Record<string, string>
  devDependencies?: Record<string, string>
  peerDependencies?: Record<string, string>
}

const readManifest = (dir: string) => JSON.parse(readFileSync(join(ROOT, dir, 'package.json'), 'utf8')) as Manifest
const ROOT_MANIFEST = readManifest('.')
const WORKSPACES = ROOT_MANIFEST.workspaces ?? []

/**
 * Declared but imported by no file of the package, each with why it is declared all the same. Keyed by workspace
 * directory, then package name.
 */
const NOT_IMPORTED: Record<string, Record<string, string>> = {
  '.': {
    node: 'the Node.js 24 binary every npm script and npx bin runs on (docs/dependencies.md); nothing imports it',
    prettier: 'a CLI: `npm run lint` and `npm run format` run it',
    '@types/node': 'type declarations of the node: modules, which tsc loads by itself',
    autocannon:
      'the benchmarks load it with `import()` of a constant typed `string` (it ships no types, so a literal ' +
      'specifier would fail the typecheck); the scan reads only literal specifiers',
  },
}

/**
 * Scripts that are development tools although they sit outside test/: held to the test rule (devDependencies
 * suffice).
 */
const DEV_SCRIPTS = new Set([
  // Takes the screenshots of docs/integrations/ by hand with playwright-core; no example runs it.
  'examples/shared/screenshot-run.ts',
])

const SCANNED = /\.(?:[cm]?[jt]s|[jt]sx)$/

function filesUnder(dir: string): string[] {
  return readdirSync(join(ROOT, dir)).flatMap((name) => {
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) return []
    const path = join(dir, name)
    if (statSync(join(ROOT, path)).isDirectory()) return filesUnder(path)
    return SCANNED.test(name) && !name.endsWith('.d.ts') ? [path] : []
  })
}

/** Tests, their support files and the build configuration: what only development needs. */
function isDevFile(workspace: string, file: string): boolean {
  const inside = relative(workspace, file)
  return (
    DEV_SCRIPTS.has(file) ||
    /(?:^|\/)test\//.test(inside) ||
    /\.test\.[cm]?[jt]sx?$/.test(inside) ||
    /^(?:vite|vitest)\.config\.[cm]?[jt]s$/.test(inside)
  )
}

interface Import {
  file: string
  name: string
  kind: Specifier['kind']
}

function installedManifest(name: string): Manifest & { types?: string; typings?: string; exports?: unknown } {
  return JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')) as Manifest
}

/** `@types/pg` for `pg`, `@types/scope__name` for `@scope/name`: the DefinitelyTyped naming. */
const definitelyTypedName = (name: string) => `@types/${name.startsWith('@') ? name.slice(1).replace('/', '__') : name}`

/**
 * The DefinitelyTyped package that types `name`, when `name` ships no declarations of its own (no `types` or
 * `typings`, no `types` condition in its exports) and that package is installed.
 */
function typesPackageOf(name: string): string | undefined {
  const types = definitelyTypedName(name)
  if (name.startsWith('@types/') || !existsSync(join(ROOT, 'node_modules', types, 'package.json'))) return undefined
  if (!existsSync(join(ROOT, 'node_modules', name, 'package.json'))) return types
  const manifest = installedManifest(name)
  const shipsTypes =
    manifest.types !== undefined ||
    manifest.typings !== undefined ||
    /"types"/.test(JSON.stringify(manifest.exports ?? null))
  return shipsTypes ? undefined : types
}

function importsIn(files: string[]): Import[] {
  return files.flatMap((file) =>
    specifiersOf(readFileSync(join(ROOT, file), 'utf8'), file).flatMap(({ specifier, kind }) => {
      const name = packageNameOf(specifier)
      if (name === undefined) return []
      const types = typesPackageOf(name)
      return types === undefined
        ? [{ file, name, kind }]
        : [
            { file, name, kind },
            { file, name: types, kind: 'type' as const },
          ]
    }),
  )
}

function importsOf(workspace: string, dev: boolean): Import[] {
  return importsIn(filesUnder(workspace).filter((file) => isDevFile(workspace, file) === dev))
}

/** The root's own files: its tests, benchmarks and the tool configuration beside package.json. */
const ROOT_FILES = [
  ...filesUnder('test'),
  ...filesUnder('bench'),
  ...readdirSync(ROOT).filter((name) => SCANNED.test(name)),
]

/** Everything a workspace (or, for `.`, the root's own files) imports, sources and development files alike. */
const everythingImportedBy = (dir: string) =>
  new Set(
    (dir === '.' ? importsIn(ROOT_FILES) : [...importsOf(dir, false), ...importsOf(dir, true)]).map(({ name }) => name),
  )

const keys = (record: Record<string, string> | undefined) => Object.keys(record ?? {})
const report = (imports: Import[]) => [...new Set(imports.map(({ file, name }) => `${file}: ${name}`))].sort()

describe('the import scanner', () => {
  const sample = [
    "import { a, type B } from 'alpha/sub'",
    "import type { C } from '@scope/beta/deep/path'",
    "import 'gamma'",
    "export { d } from 'delta'",
    "export type { E } from 'epsilon'",
    'export * from "zeta"',
    'import {',
    '  f,',
    "} from 'eta'",
    "const lazy = await import('theta')",
    'const computed = await import(name)',
    "const viaRequire = require('iota')",
    "const viaCreateRequire = createRequire(import.meta.url)('kappa')",
    "const where = import.meta.resolve('lambda')",
    "type M = typeof import('mu')",
    "declare module 'nu' { interface X { y: string } }",
    "import { readFileSync } from 'node:fs'",
    "import { helper } from './helper.js'",
    "// import { commented } from 'not-a-comment'",
    'const text = "import { quoted } from \'not-a-string\'"',
  ].join('\n')

  it('finds static, re-exported, type-only, dynamic and required specifiers, and their kinds', () => {
    expect(specifiersOf(sample, 'sample.ts')).toEqual([
      { specifier: 'alpha/sub', kind: 'runtime' },
      { specifier: '@scope/beta/deep/path', kind: 'type' },
      { specifier: 'gamma', kind: 'runtime' },
      { specifier: 'delta', kind: 'runtime' },
      { specifier: 'epsilon', kind: 'type' },
      { specifier: 'zeta', kind: 'runtime' },
      { specifier: 'eta', kind: 'runtime' },
      { specifier: 'theta', kind: 'runtime' },
      { specifier: 'iota', kind: 'runtime' },
      { specifier: 'kappa', kind: 'runtime' },
      { specifier: 'lambda', kind: 'runtime' },
      { specifier: 'mu', kind: 'type' },
      { specifier: 'nu', kind: 'type' },
      { specifier: 'node:fs', kind: 'runtime' },
      { specifier: './helper.js', kind: 'runtime' },
    ])
  })

  it('reads JSX and plain JavaScript too', () => {
    expect(specifiersOf("import { h } from 'preact'\nexport const v = <div />", 'view.tsx')).toEqual([
      { specifier: 'preact', kind: 'runtime' },
    ])
    expect(specifiersOf("var m = require('omicron')", 'launcher.js')).toEqual([
      { specifier: 'omicron', kind: 'runtime' },
    ])
    // The committed bins' ES5 dynamic import; a Function that does not import is not a loader.
    const es5Import = "new Function('specifier', 'return import(specifier)')('pi/launcher').then(function () {})"
    expect(specifiersOf(es5Import, 'bin.js')).toEqual([{ specifier: 'pi/launcher', kind: 'runtime' }])
    expect(specifiersOf("new Function('x', 'return x + 1')('rho')", 'bin.js')).toEqual([])
  })

  it('maps a specifier to its package, and paths and node: builtins to none', () => {
    expect(packageNameOf('alpha/sub')).toBe('alpha')
    expect(packageNameOf('@scope/beta/deep/path')).toBe('@scope/beta')
    expect(packageNameOf('@scope/beta')).toBe('@scope/beta')
    expect(packageNameOf('ipaddr.js')).toBe('ipaddr.js')
    expect(packageNameOf('node:fs')).toBeUndefined()
    expect(packageNameOf('node:fs/promises')).toBeUndefined()
    expect(packageNameOf('./helper.js')).toBeUndefined()
    expect(packageNameOf('../up.js')).toBeUndefined()
    expect(packageNameOf('/abs/path.js')).toBeUndefined()
    expect(packageNameOf('#internal')).toBeUndefined()
  })
})

describe.each(WORKSPACES)('workspace %s', (workspace) => {
  const manifest = readManifest(workspace)
  const runtime = new Set([...keys(manifest.dependencies), ...keys(manifest.peerDependencies)])
  const declaredHere = new Set([...runtime, ...keys(manifest.devDependencies)])
  // A package may import itself through its own exports map.
  const external = (imports: Import[]) => imports.filter(({ name }) => name !== manifest.name)
  const sources = external(importsOf(workspace, false))
  const devFiles = external(importsOf(workspace, true))

  // One README per package: what it is (under its package name), what it may import, how to test it.
  it('has a README naming the package, what it may import and how to test it', () => {
    const readme = join(ROOT, workspace, 'README.md')
    expect(existsSync(readme)).toBe(true)
    const text = readFileSync(readme, 'utf8')
    expect(text.split('\n')[0]).toBe(`# ${manifest.name}`)
    expect(text).toMatch(/^## May import$/m)
    expect(text).toMatch(/^Tests: /m)
  })

  it('has sources the scan reads (an empty scan would pass every rule below)', () => {
    expect(filesUnder(workspace).length).toBeGreaterThan(0)
    expect(sources.length).toBeGreaterThan(0)
  })

  it('declares what its sources import at runtime as dependencies or peer dependencies', () => {
    expect(report(sources.filter(({ kind, name }) => kind === 'runtime' && !runtime.has(name)))).toEqual([])
  })

  it('declares what its sources import for types (as dependencies when published)', () => {
    const allowed = manifest.private === true ? declaredHere : runtime
    expect(report(sources.filter(({ kind, name }) => kind === 'type' && !allowed.has(name)))).toEqual([])
  })

  it('declares what its tests and build configuration import', () => {
    expect(report(devFiles.filter(({ name }) => !declaredHere.has(name)))).toEqual([])
  })

  it('imports everything it declares (or says in NOT_IMPORTED why not)', () => {
    const imported = everythingImportedBy(workspace)
    const excused = NOT_IMPORTED[workspace] ?? {}
    expect([...declaredHere].filter((name) => !imported.has(name) && !(name in excused)).sort()).toEqual([])
  })
})

/**
 * The root is no package anyone installs: it holds the repository's own tests (test/), benchmarks (bench/) and
 * tool configuration, and every workspace is installed with it. What those import is declared by the root, by a
 * workspace (npm installs every workspace's dependencies at the root) or is a workspace; a package that comes
 * only as some dependency's dependency may vanish with the next update of that dependency.
 */
describe('the root', () => {
  const imports = importsIn(ROOT_FILES)
  const manifests = WORKSPACES.map(readManifest)

  it('has tests, benchmarks and configuration the scan reads', () => {
    expect(ROOT_FILES).toContain('vitest.config.ts')
    expect(ROOT_FILES.some((file) => file.startsWith('bench/'))).toBe(true)
    expect(imports.length).toBeGreaterThan(0)
  })

  it('imports only what the root or a workspace declares, and the workspaces', () => {
    const declared = new Set([
      ...keys(ROOT_MANIFEST.dependencies),
      ...keys(ROOT_MANIFEST.devDependencies),
      ...manifests.flatMap((manifest) => [
        manifest.name,
        ...keys(manifest.dependencies),
        ...keys(manifest.devDependencies),
        ...keys(manifest.peerDependencies),
      ]),
    ])
    expect(report(imports.filter(({ name }) => !declared.has(name)))).toEqual([])
  })

  it('imports everything it declares (or says in NOT_IMPORTED why not)', () => {
    const imported = new Set(imports.map(({ name }) => name))
    const excused = NOT_IMPORTED['.'] ?? {}
    const declared = [...keys(ROOT_MANIFEST.dependencies), ...keys(ROOT_MANIFEST.devDependencies)]
    expect(declared.filter((name) => !imported.has(name) && !(name in excused)).sort()).toEqual([])
  })
})

// docs/dependencies.md gives each dependency its reason ("a new one needs a line here"): one declared without a
// mention there has none.
it('docs/dependencies.md names every declared dependency', () => {
  const doc = readFileSync(join(ROOT, 'docs/dependencies.md'), 'utf8')
  const declared = ['.', ...WORKSPACES]
    .map(readManifest)
    .flatMap((manifest) => [
      ...keys(manifest.dependencies),
      ...keys(manifest.devDependencies),
      ...keys(manifest.peerDependencies),
    ])
  const external = [...new Set(declared)].filter((name) => !name.startsWith('@acdp/'))
  expect(external.length).toBeGreaterThan(20)
  expect(external.filter((name) => !doc.includes(`\`${name}\``)).sort()).toEqual([])
})

describe('NOT_IMPORTED', () => {
  // An excuse for a dependency that is since imported, or no longer declared, would hide the next one.
  it.each(Object.entries(NOT_IMPORTED))('%s: every entry is declared and still not imported', (workspace, excused) => {
    expect(existsSync(join(ROOT, workspace, 'package.json'))).toBe(true)
    const manifest = readManifest(workspace)
    const declared = new Set([
      ...keys(manifest.dependencies),
      ...keys(manifest.devDependencies),
      ...keys(manifest.peerDependencies),
    ])
    const imported = everythingImportedBy(workspace)
    expect(Object.keys(excused).filter((name) => !declared.has(name) || imported.has(name))).toEqual([])
  })
})
