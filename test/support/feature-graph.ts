/**
 * The import graph between a server's feature folders (`src/<feature>/…`), from each file's syntax tree: which
 * feature imports which, through which files, and the groups of features that import each other round in a cycle.
 *
 * Only runtime imports count: an `import type` is erased from the JavaScript, so it orders nothing at load time
 * and cannot make one feature's module evaluation depend on another's.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { specifiersOf } from './import-specifiers.js'

export interface FeatureGraph {
  /** feature → imported feature → the importing file and the file it imports (relative to src/). */
  edges: Map<string, Map<string, string[]>>
}

function* sourceFiles(dir: string): Generator<string> {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) yield* sourceFiles(path)
    else if (/\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name) && !name.endsWith('.d.ts')) yield path
  }
}

/**
 * @param srcDir a server's `src/`.
 * @param wiring files (relative to src/) that assemble the features rather than belong to one (the root's entry
 *   points, configuration and dependency wiring): neither their imports nor imports of them are edges.
 */
export function featureGraph(srcDir: string, wiring: (file: string) => boolean): FeatureGraph {
  const featureOf = (file: string): string | undefined => {
    const parts = relative(srcDir, file).split('/')
    return parts.length === 1 ? undefined : parts[0]
  }
  const edges = new Map<string, Map<string, string[]>>()
  for (const file of sourceFiles(srcDir)) {
    const from = featureOf(file)
    if (from === undefined || wiring(relative(srcDir, file))) continue
    for (const { specifier, kind } of specifiersOf(readFileSync(file, 'utf8'), file)) {
      if (kind !== 'runtime' || !specifier.startsWith('.')) continue
      const target = resolve(dirname(file), specifier).replace(/\.js$/, '.ts')
      const to = featureOf(target)
      if (to === undefined || to === from || wiring(relative(srcDir, target))) continue
      const byTarget = edges.get(from) ?? new Map<string, string[]>()
      byTarget.set(to, [...(byTarget.get(to) ?? []), `${relative(srcDir, file)} → ${relative(srcDir, target)}`])
      edges.set(from, byTarget)
    }
  }
  return { edges }
}

/** The groups of two or more features that reach each other (strongly connected components, Tarjan). */
export function featureCycles(graph: FeatureGraph): string[][] {
  const index = new Map<string, number>()
  const low = new Map<string, number>()
  const stack: string[] = []
  const onStack = new Set<string>()
  const groups: string[][] = []
  let next = 0
  const visit = (node: string): void => {
    index.set(node, next)
    low.set(node, next)
    next++
    stack.push(node)
    onStack.add(node)
    for (const to of graph.edges.get(node)?.keys() ?? []) {
      if (!index.has(to)) {
        visit(to)
        low.set(node, Math.min(low.get(node)!, low.get(to)!))
      } else if (onStack.has(to)) {
        low.set(node, Math.min(low.get(node)!, index.get(to)!))
      }
    }
    if (low.get(node) !== index.get(node)) return
    const group: string[] = []
    let member: string | undefined
    do {
      member = stack.pop()!
      onStack.delete(member)
      group.push(member)
    } while (member !== node)
    if (group.length > 1) groups.push(group.sort())
  }
  const nodes = new Set([...graph.edges.keys(), ...[...graph.edges.values()].flatMap((m) => [...m.keys()])])
  for (const node of [...nodes].sort()) if (!index.has(node)) visit(node)
  return groups
}

/** Each edge of a cycle group, with the files that make it (for a failure message that says what to move). */
export function describeCycle(graph: FeatureGraph, group: string[]): string[] {
  return group.flatMap((from) =>
    [...(graph.edges.get(from) ?? new Map<string, string[]>())]
      .filter(([to]) => group.includes(to))
      .map(([to, files]) => `${from} → ${to}: ${files.join('; ')}`),
  )
}
