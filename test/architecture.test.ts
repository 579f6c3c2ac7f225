/**
 * Architecture rules written as a test (Tessera's pattern): arrows point inward, routes never touch
 * SQL, stores never touch HTTP, services take neither Fastify's request nor a route, and byte-exact work and
 * time stay out of services.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'
import { specifiersOf } from './support/import-specifiers.js'

const ROOT = fileURLToPath(new URL('..', import.meta.url))

function sourceFiles(dir: string): string[] {
  const abs = join(ROOT, dir)
  if (!existsSync(abs)) return []
  return readdirSync(abs).flatMap((name) => {
    const path = join(abs, name)
    if (statSync(path).isDirectory()) return sourceFiles(join(dir, name))
    return /\.tsx?$/.test(name) && !name.endsWith('.test.ts') ? [join(dir, name)] : []
  })
}

/** Every source, test and document under `dir`, tests included (node_modules and build output skipped). */
function everyTextFile(dir: string): string[] {
  const abs = join(ROOT, dir)
  if (!existsSync(abs)) return []
  return readdirSync(abs).flatMap((name) => {
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) return []
    const path = join(abs, name)
    if (statSync(path).isDirectory()) return everyTextFile(join(dir, name))
    return /\.(?:tsx?|md|toml|env|sh|cfg)$/.test(name) && name !== 'architecture.test.ts' ? [join(dir, name)] : []
  })
}

function offenders(dirs: string[], forbid: string[], files: string[] = []): string[] {
  return [...dirs.flatMap(sourceFiles), ...files].flatMap((file) => {
    const text = readFileSync(join(ROOT, file), 'utf8')
    return forbid.filter((needle) => text.includes(needle)).map((needle) => `${file}: ${needle}`)
  })
}

/**
 * The one way the console may name the control plane: `import type { … } from '@acdp/control-plane/response-schemas'`
 * (and `import type` of typebox, for `Static`). Type-only statements are erased from the bundle; any other
 * mention — a value import, `import { type X }` (which leaves a side-effect import behind), another entry, a dynamic
 * import — would pull server code into the browser. Returns the offending lines of a console source.
 */
const CONSOLE_TYPE_IMPORT =
  /^(?:import|export) type \{[^}]*\} from '(?:@acdp\/control-plane\/response-schemas|typebox)'$/gm
function consoleServerImports(source: string): string[] {
  return (
    source
      .replace(CONSOLE_TYPE_IMPORT, '')
      .split('\n')
      // Comment lines may name the entry (the type files say where their shapes come from).
      .filter((line) => !/^\s*(?:\/\/|\/?\*)/.test(line))
      .filter((line) => line.includes('@acdp/control-plane') || /['"]typebox(?:\/[^'"]*)?['"]/.test(line))
      .map((line) => line.trim())
  )
}

/** The response schemas are what clients import: typebox and each other, nothing else. */
const RESPONSE_SCHEMAS = 'packages/control-plane/src/response-schemas'

const SERVERS = ['packages/registry/src', 'packages/control-plane/src']
const REGISTRY = 'packages/registry/src'
const CONTROL_PLANE = 'packages/control-plane/src'

/** Every source file in the feature folders of a server: each folder but `store/` (the store plumbing). */
function featureFiles(server: string): string[] {
  return readdirSync(join(ROOT, server))
    .filter((name) => name !== 'store' && statSync(join(ROOT, server, name)).isDirectory())
    .flatMap((name) => sourceFiles(`${server}/${name}`))
}

/**
 * The registry is laid out in feature folders (store plumbing in `store/`): a feature's route files end in
 * `-routes.ts`, its store slices in `-store.ts`, the rest is its behaviour. `core/http/` holds the HTTP hooks.
 */
const REGISTRY_FEATURE_FILES = featureFiles(REGISTRY)
const REGISTRY_ROUTES = REGISTRY_FEATURE_FILES.filter((file) => file.endsWith('-routes.ts'))
const REGISTRY_STORE_SLICES = REGISTRY_FEATURE_FILES.filter((file) => file.endsWith('-store.ts'))
const REGISTRY_BEHAVIOUR = REGISTRY_FEATURE_FILES.filter(
  (file) => !file.endsWith('-routes.ts') && !file.endsWith('-store.ts') && !file.includes('/core/'),
)

/**
 * The control plane likewise (store contract, Kysely store, batched writes, prepared reads and migrations in
 * `store/`): route files end in `-routes.ts`, a feature's store slice in `-store.ts` and its table shapes in
 * `-schema.ts`, the rest is behaviour, `core/` included except `core/deps.ts`, where the real clock and
 * randomness are bound for everything else.
 */
const CONTROL_PLANE_FEATURE_FILES = featureFiles(CONTROL_PLANE)
const CONTROL_PLANE_ROUTES = CONTROL_PLANE_FEATURE_FILES.filter((file) => file.endsWith('-routes.ts'))
const CONTROL_PLANE_STORE_SLICES = CONTROL_PLANE_FEATURE_FILES.filter((file) => /-(?:store|schema)\.ts$/.test(file))
const CONTROL_PLANE_BEHAVIOUR = CONTROL_PLANE_FEATURE_FILES.filter(
  (file) =>
    !file.endsWith('-routes.ts') && !/-(?:store|schema)\.ts$/.test(file) && file !== `${CONTROL_PLANE}/core/deps.ts`,
)
const KIT = 'packages/service-kit/src'

/**
 * The HTTP layer: the only files that may name Fastify's request and reply types. Route files (`-routes.ts`), a
 * feature's HTTP adapter (`-http.ts`), installers of Fastify hooks (`-hooks.ts`), the HTTP plumbing (each
 * server's `core/http/`, the kit's `http/`), the error handler (`core/errors.ts`), the route-auth installer
 * (`route-auth.ts`) and each server's app wiring (`app.ts`, `features.ts`, `route-plugins.ts`). A service takes
 * the part of a request it reads (the registry's `core/http/request-head.ts`), so a route hands it the Fastify
 * request unchanged and the service stays callable, and testable, without Fastify.
 */
function isHttpLayer(file: string): boolean {
  if (/-(?:routes|http|hooks)\.ts$|\/route-auth\.ts$/.test(file)) return true
  if (file.startsWith(`${KIT}/http/`)) return true
  return SERVERS.some(
    (server) =>
      file.startsWith(`${server}/core/http/`) ||
      [`${server}/core/errors.ts`, `${server}/app.ts`, `${server}/features.ts`, `${server}/route-plugins.ts`].includes(
        file,
      ),
  )
}
const HTTP_SCOPE = [...SERVERS, KIT].flatMap(sourceFiles)
const HTTP_LAYER = HTTP_SCOPE.filter(isHttpLayer)
const BEHIND_HTTP = HTTP_SCOPE.filter((file) => !isHttpLayer(file))

/**
 * Every `FastifyRequest` or `FastifyReply` a source names, read from its syntax tree: an import in any form
 * (`import type { … }`, `import { type … }`, a rename, a namespace's member, `import('fastify').…`) and any use,
 * never a comment or a string.
 */
const FASTIFY_HTTP_TYPES = new Set(['FastifyRequest', 'FastifyReply'])
function fastifyHttpTypes(text: string): { name: string; line: number }[] {
  const source = ts.createSourceFile('source.ts', text, ts.ScriptTarget.Latest, false, ts.ScriptKind.TS)
  const found: { name: string; line: number }[] = []
  const visit = (node: ts.Node): void => {
    if (ts.isIdentifier(node) && FASTIFY_HTTP_TYPES.has(node.text)) {
      found.push({ name: node.text, line: source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1 })
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

/**
 * What may import a route file: another route file, and the list of features that mounts them (the registry's
 * `features.ts`, the control plane's `route-plugins.ts`). A type a service and its routes share lives in the
 * service.
 */
const ROUTE_IMPORTERS = new Set([`${REGISTRY}/features.ts`, `${CONTROL_PLANE}/route-plugins.ts`])
const NON_ROUTES = SERVERS.flatMap(sourceFiles).filter(
  (file) => !file.endsWith('-routes.ts') && !ROUTE_IMPORTERS.has(file),
)

const RULES = [
  {
    name: 'protocol knows no server, database or environment',
    dirs: ['packages/protocol/src'],
    forbid: [
      "from 'fastify'",
      "from 'kysely'",
      "from 'pg'",
      'process.env',
      '@acdp/service-kit',
      '@acdp/registry',
      '@acdp/control-plane',
    ],
  },
  {
    // The kit is what both servers run the same way: below them, so it can never know either.
    name: 'the service kit imports no server, CLI or console',
    dirs: [KIT],
    forbid: ['@acdp/registry', '@acdp/control-plane', '@acdp/cli', '@acdp/console'],
  },
  {
    // The adapters run inside users' agent apps: a client of the registry and control plane over HTTP, like the
    // CLI, holding none of the server or storage code.
    name: 'the integrations import the protocol and no server, storage, CLI or console',
    dirs: ['packages/integrations/src'],
    forbid: [
      '@acdp/registry',
      '@acdp/control-plane',
      '@acdp/storage',
      '@acdp/service-kit',
      '@acdp/cli',
      '@acdp/console',
    ],
  },
  {
    // The MCP server is a client of the registry and control plane over HTTP, like the CLI that starts it.
    name: 'the MCP server imports only the protocol (no server, storage, kit or CLI)',
    dirs: ['packages/mcp/src'],
    forbid: [
      '@acdp/registry',
      '@acdp/control-plane',
      '@acdp/storage',
      '@acdp/service-kit',
      '@acdp/cli',
      "from 'fastify'",
      'process.env',
    ],
  },
  {
    name: 'registry never imports the control plane',
    dirs: ['packages/registry/src'],
    forbid: ['@acdp/control-plane'],
  },
  {
    name: 'control plane never imports the registry',
    dirs: ['packages/control-plane/src'],
    forbid: ['@acdp/registry'],
  },
  {
    name: 'routes never touch SQL or the store implementation',
    dirs: [],
    files: [...REGISTRY_ROUTES, ...CONTROL_PLANE_ROUTES],
    forbid: ["from 'kysely'", '/store/kysely', "from 'pg'"],
  },
  {
    name: 'stores never touch HTTP',
    dirs: SERVERS.map((s) => `${s}/store`),
    files: [...REGISTRY_STORE_SLICES, ...CONTROL_PLANE_STORE_SLICES],
    forbid: ["from 'fastify'", '/routes/', '-routes.js'],
  },
  {
    name: 'services take time and hashing from deps and protocol',
    dirs: [],
    files: [...REGISTRY_BEHAVIOUR, ...CONTROL_PLANE_BEHAVIOUR],
    forbid: ["createHash('sha256'", 'Date.now(', 'new Date()', 'randomUUID('],
  },
  {
    // The console is a client of the control plane's public HTTP API: no server or storage code, and only the
    // browser-safe verification entry of the protocol (its root also exports the Node-only outbound client).
    name: 'console uses only the HTTP API and @acdp/protocol/verify',
    dirs: ['packages/console/src'],
    // The control plane is named only through type imports of its response schemas (consoleServerImports below).
    forbid: ['@acdp/registry', '@acdp/storage', "from '@acdp/protocol'", "from 'node:"],
  },
]

describe('architecture', () => {
  it.each(RULES)('$name', ({ dirs, forbid, ...rest }) => {
    expect(offenders(dirs, forbid, 'files' in rest ? rest.files : [])).toEqual([])
  })

  it('services never take FastifyRequest or FastifyReply (only the HTTP layer names them)', () => {
    const offending = BEHIND_HTTP.flatMap((file) =>
      fastifyHttpTypes(readFileSync(join(ROOT, file), 'utf8')).map(({ name, line }) => `${file}:${line}: ${name}`),
    )
    expect(offending).toEqual([])
    // The rule must keep selecting services, and the check must find what the HTTP layer does import (or it
    // reads nothing).
    expect(BEHIND_HTTP.length).toBeGreaterThan(150)
    const naming = HTTP_LAYER.filter((file) => fastifyHttpTypes(readFileSync(join(ROOT, file), 'utf8')).length > 0)
    expect(naming.length).toBeGreaterThan(15)
  })

  it.each([
    ["import type { FastifyRequest } from 'fastify'", 'FastifyRequest', 'a type import'],
    ["import { type FastifyRequest } from 'fastify'", 'FastifyRequest', 'an inline type modifier'],
    ["import type { FastifyInstance, FastifyReply } from 'fastify'", 'FastifyReply', 'the reply beside another name'],
    ["import Fastify, { type FastifyReply } from 'fastify'", 'FastifyReply', 'beside a default import'],
    [
      "import type {\n  FastifyInstance,\n  FastifyRequest,\n} from 'fastify'",
      'FastifyRequest',
      'a statement over lines',
    ],
    ["import type { FastifyRequest as Incoming } from 'fastify'", 'FastifyRequest', 'a rename'],
    ["type Incoming = import('fastify').FastifyRequest", 'FastifyRequest', 'an import type'],
    ["import type * as F from 'fastify'\ntype Outgoing = F.FastifyReply", 'FastifyReply', 'a namespace member'],
  ])('the HTTP-boundary rule catches %s (%s, %s)', (source, name) => {
    const found = fastifyHttpTypes(`import { RegistryError } from '../core/errors.js'\n${source}\n`)
    expect(found.map((entry) => entry.name)).toEqual([name])
    expect(found[0]?.line).toBeGreaterThan(1)
  })

  it('the HTTP-boundary rule reads no comment or string, and allows the other Fastify types', () => {
    const source = [
      '/** The route hands over its FastifyRequest as it is. */',
      '// not a FastifyReply',
      "import type { FastifyInstance } from 'fastify'",
      "const name = 'FastifyRequest'",
    ].join('\n')
    expect(fastifyHttpTypes(source)).toEqual([])
  })

  it('a service never imports a route (only route files and the feature lists do)', () => {
    const offending = NON_ROUTES.flatMap((file) =>
      specifiersOf(readFileSync(join(ROOT, file), 'utf8'), file)
        .filter(({ specifier }) => specifier.endsWith('-routes.js'))
        .map(({ specifier }) => `${file}: ${specifier}`),
    )
    expect(offending).toEqual([])
    expect(NON_ROUTES.length).toBeGreaterThan(150)
    // The feature lists must still be the files that import the routes (or the rule exempts nothing real).
    for (const file of ROUTE_IMPORTERS) {
      const specifiers = specifiersOf(readFileSync(join(ROOT, file), 'utf8'), file)
      expect(specifiers.filter(({ specifier }) => specifier.endsWith('-routes.js')).length).toBeGreaterThan(10)
    }
  })

  it('the console names the control plane and typebox only in type imports of the response schemas', () => {
    const files = sourceFiles('packages/console/src')
    const offending = files.flatMap((file) =>
      consoleServerImports(readFileSync(join(ROOT, file), 'utf8')).map((line) => `${file}: ${line}`),
    )
    expect(offending).toEqual([])
    // The rule must keep selecting the console's wire types (or it checks nothing).
    const typeImporting = files.filter((file) =>
      readFileSync(join(ROOT, file), 'utf8').includes("from '@acdp/control-plane/response-schemas'"),
    )
    expect(typeImporting.length).toBeGreaterThan(0)
  })

  it.each([
    ["import { RunShape } from '@acdp/control-plane/response-schemas'", 'a value import'],
    ["import { type RunShape } from '@acdp/control-plane/response-schemas'", 'inline type modifiers'],
    ["import type { buildApp } from '@acdp/control-plane'", 'another entry'],
    ["const m = await import('@acdp/control-plane/response-schemas')", 'a dynamic import'],
    ["import { Type } from 'typebox'", 'a value import of typebox'],
    ["import type { Type } from 'typebox/value'", 'a typebox subpath'],
  ])('the console rule catches %s (%s)', (source) => {
    expect(consoleServerImports(`import { h } from 'preact'\n${source}\n`)).toEqual([source])
  })

  it('the console rule allows type-only imports of the response schemas and typebox', () => {
    const source = [
      '/** Derived from `@acdp/control-plane/response-schemas`. */',
      '// see typebox',
      'import type {',
      '  RunShape,',
      '  EventShape,',
      "} from '@acdp/control-plane/response-schemas'",
      "import type { Static } from 'typebox'",
      "export type { SessionShape } from '@acdp/control-plane/response-schemas'",
    ].join('\n')
    expect(consoleServerImports(source)).toEqual([])
  })

  it('the response schemas import only typebox and each other', () => {
    const files = sourceFiles(RESPONSE_SCHEMAS)
    expect(files.length).toBeGreaterThan(5)
    const specifiers = files.flatMap((file) =>
      [...readFileSync(join(ROOT, file), 'utf8').matchAll(/\bfrom\s+'([^']+)'|\bimport\s*\(\s*'([^']+)'/g)]
        .map((match) => match[1] ?? match[2] ?? '')
        .filter((specifier) => specifier !== 'typebox' && !/^\.\/[\w-]+\.js$/.test(specifier))
        .map((specifier) => `${file}: ${specifier}`),
    )
    expect(specifiers).toEqual([])
  })

  // The registry's feature-folder rules must still select files: a layout change that empties them would pass
  // every rule above without checking anything.
  it('the registry feature-folder rules select its routes, store slices and behaviour', () => {
    expect(REGISTRY_ROUTES.length).toBeGreaterThan(10)
    expect(REGISTRY_STORE_SLICES.length).toBeGreaterThan(2)
    expect(REGISTRY_BEHAVIOUR.length).toBeGreaterThan(30)
  })

  it('the control-plane feature-folder rules select its routes, store slices and behaviour', () => {
    expect(CONTROL_PLANE_ROUTES.length).toBeGreaterThan(15)
    expect(CONTROL_PLANE_STORE_SLICES.length).toBeGreaterThan(5)
    expect(CONTROL_PLANE_BEHAVIOUR.length).toBeGreaterThan(50)
    // Every feature file that declares routes is one the route rule reads: none goes by another name.
    const declaresRoutes = /: RoutePlugin = |export function register\w*Routes\(/
    const unnamed = CONTROL_PLANE_FEATURE_FILES.filter(
      (file) => !file.endsWith('-routes.ts') && declaresRoutes.test(readFileSync(join(ROOT, file), 'utf8')),
    )
    expect(unnamed).toEqual([])
  })

  // An idle instance must not hold libraries it may never use (docs/performance/journal.md "Idle memory (RSS)"): the
  // PostgreSQL driver on SQLite, jose without tokens. Their modules import them on first use (`await import`).
  it('the services and storage import pg and jose lazily (type imports only at the top)', () => {
    const eager = /^import (?!type )[^'"]*? from '(?:pg|jose)'/m
    const files = ['packages/storage/src', KIT, ...SERVERS].flatMap(sourceFiles)
    expect(files.length).toBeGreaterThan(0)
    expect(files.filter((file) => eager.test(readFileSync(join(ROOT, file), 'utf8')))).toEqual([])
  })

  // The same for what only some requests need (docs/performance/journal.md "Idle memory (RSS)", Session 4): TypeBox's
  // compiler and value modules (the registry compiles its configuration schema at startup anyway, so it is
  // exempt), @noble/curves and Fastify's serializer compiler are loaded with `require` on first use; the protocol's
  // *.browser.ts twins import them statically, a bundle has no other way.
  it.each([
    {
      modules: 'typebox/compile, typebox/value and the Fastify TypeBox provider',
      dirs: ['packages/protocol/src', 'packages/storage/src', 'packages/control-plane/src'],
      eager: /^import (?!type )[^'"]*? from '(?:typebox\/(?:compile|value)|@fastify\/type-provider-typebox)'/m,
    },
    {
      modules: '@noble/curves and @fastify/fast-json-stringify-compiler',
      dirs: ['packages/protocol/src', 'packages/storage/src', KIT, ...SERVERS],
      eager: /^import (?!type )[^'"]*? from '(?:@noble\/curves\/[^']*|@fastify\/fast-json-stringify-compiler)'/m,
    },
  ])('$modules are imported on first use (type imports only at the top)', ({ dirs, eager }) => {
    const files = dirs.flatMap(sourceFiles).filter((file) => !file.endsWith('.browser.ts'))
    expect(files.length).toBeGreaterThan(0)
    expect(files.filter((file) => eager.test(readFileSync(join(ROOT, file), 'utf8')))).toEqual([])
  })

  // A clone must stand alone: a comment or a doc gives the reason or cites the RFC / product spec section, never
  // a section of notes that live outside the repository.
  it('no source, test, bench or doc cites notes outside the repository', () => {
    const outside =
      /\bdigest\s+(?:\*\s+)?[A-F][0-9]|\bdigest\s+(?:\*\s+)?[A-F]\s+perf\b|\bdigest [A-F]\/|\b[A-F][0-9]'s tables\b|weak point|reference's #[0-9]|\bE-perf|shared\/notes\//i
    const files = ['packages', 'bench', 'test', 'docs', 'deploy'].flatMap(everyTextFile)
    expect(files.length).toBeGreaterThan(100)
    const citing = files.filter((file) => outside.test(readFileSync(join(ROOT, file), 'utf8')))
    expect(citing).toEqual([])
  })

  // Whether each package declares what it imports (and imports what it declares): test/package-imports.test.ts.

  it('finds the protocol and console sources it polices', () => {
    expect(sourceFiles('packages/protocol/src').length).toBeGreaterThan(0)
    expect(sourceFiles('packages/console/src').some((file) => file.endsWith('.tsx'))).toBe(true)
  })
})
