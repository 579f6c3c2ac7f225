/**
 * The servers' feature folders import each other without cycles, and `core/` (what every feature builds on: errors,
 * HTTP plumbing, metrics, ids) imports no feature. The files that assemble features — the package root (app, entry
 * points, the feature list) and the configuration and dependency wiring in `core/` — may import any feature.
 *
 * A cycle between features means neither can be understood, tested or moved alone, and their modules' load order
 * depends on which is imported first; the fix is to move the shared piece into `core/` or into the feature that owns
 * it (the failure names the files).
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { describeCycle, featureCycles, featureGraph } from './support/feature-graph.js'

const ROOT = resolve(fileURLToPath(new URL('..', import.meta.url)))

/** Configuration and dependency wiring: they name every feature's settings and implementations by design. */
const CORE_WIRING = new Set(['core/config.ts', 'core/config-variables.ts', 'core/deps.ts'])
const isWiring = (file: string) => !file.includes('/') || CORE_WIRING.has(file)

const SERVERS = [
  { name: 'registry', src: join(ROOT, 'packages/registry/src') },
  { name: 'control plane', src: join(ROOT, 'packages/control-plane/src') },
]

describe.each(SERVERS)('the $name', ({ src }) => {
  const graph = featureGraph(src, isWiring)

  it('has feature folders that import each other', () => {
    // The rule polices something: a graph with no edges would pass whatever the code did.
    expect(graph.edges.size).toBeGreaterThan(5)
  })

  it('has no import cycle between features', () => {
    expect(featureCycles(graph).map((group) => describeCycle(graph, group))).toEqual([])
  })

  it('imports no feature from core/ (but its configuration and dependency wiring)', () => {
    const fromCore = [...(graph.edges.get('core') ?? new Map<string, string[]>())].flatMap(([, files]) => files)
    expect(fromCore).toEqual([])
  })
})

describe('the feature graph', () => {
  const dir = mkdtempSync(join(tmpdir(), 'acdp-feature-graph-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))
  const write = (file: string, text: string) => {
    mkdirSync(dirname(join(dir, file)), { recursive: true })
    writeFileSync(join(dir, file), text)
  }
  write('a/a.ts', "import { b } from '../b/b.js'\nexport const a = b")
  write('b/b.ts', "import { c } from '../c/c.js'\nimport type { A } from '../a/a.js'\nexport const b = c")
  write('c/c.ts', "import { a } from '../a/a.js'\nexport const c = 1")
  write('d/d.ts', "import { a } from '../a/a.js'\nexport const d = a")
  write('core/deps.ts', "import { d } from '../d/d.js'\nexport const deps = d")
  write('core/errors.ts', 'export class E extends Error {}')
  write('app.ts', "import { a } from './a/a.js'\nimport { d } from './d/d.js'\nexport const app = [a, d]")

  it('finds a cycle of runtime imports and names its files, and leaves type imports and wiring out', () => {
    const graph = featureGraph(dir, isWiring)
    const cycles = featureCycles(graph)
    expect(cycles).toEqual([['a', 'b', 'c']])
    expect(describeCycle(graph, cycles[0]!)).toEqual([
      'a → b: a/a.ts → b/b.ts',
      'b → c: b/b.ts → c/c.ts',
      'c → a: c/c.ts → a/a.ts',
    ])
    // d → a is an edge but no cycle; core/deps.ts → d and app.ts are wiring.
    expect([...(graph.edges.get('d')?.keys() ?? [])]).toEqual(['a'])
    expect(graph.edges.has('core')).toBe(false)
  })
})
