/**
 * No exported type, interface, class or enum name is declared in more than one source file of the packages.
 *
 * Why: two declarations under one name are either one concept written twice (they drift apart, and a reader cannot
 * tell which is the truth) or two concepts a reader confuses (an import picks the wrong one and the compiler may
 * not notice when the shapes happen to fit). The fix is one declaration that the others import or re-export
 * (`export type { X } from …` declares nothing), or a name that says what each one is.
 *
 * Declarations are read from the syntax tree (TypeScript's parser), so a sample in a comment or a string is not one.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

const ROOT = fileURLToPath(new URL('..', import.meta.url))

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return name === 'node_modules' || name === 'dist' ? [] : sourceFiles(path)
    return /\.tsx?$/.test(name) && !/\.test\.tsx?$/.test(name) && !name.endsWith('.d.ts') ? [path] : []
  })
}

function packageSources(): string[] {
  const packages = join(ROOT, 'packages')
  return readdirSync(packages)
    .map((name) => join(packages, name, 'src'))
    .filter((src) => statSync(src, { throwIfNoEntry: false })?.isDirectory() === true)
    .flatMap(sourceFiles)
}

type Declaration = ts.TypeAliasDeclaration | ts.InterfaceDeclaration | ts.ClassDeclaration | ts.EnumDeclaration

function isNamedDeclaration(node: ts.Node): node is Declaration {
  return (
    ts.isTypeAliasDeclaration(node) ||
    ts.isInterfaceDeclaration(node) ||
    ts.isClassDeclaration(node) ||
    ts.isEnumDeclaration(node)
  )
}

/** The names a module's top level exports by declaring them (`export type X =`, `export interface X`, …). */
function exportedDeclarations(source: string, fileName: string): string[] {
  const file = ts.createSourceFile(
    fileName,
    source,
    ts.ScriptTarget.Latest,
    false,
    fileName.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS,
  )
  return file.statements.flatMap((statement) => {
    if (!isNamedDeclaration(statement) || statement.name === undefined) return []
    const exported = ts.getModifiers(statement)?.some((modifier) => modifier.kind === ts.SyntaxKind.ExportKeyword)
    return exported === true ? [statement.name.text] : []
  })
}

/** Name → the files declaring it, for the names declared in more than one file. */
function duplicatedNames(files: ReadonlyArray<{ file: string; source: string }>): Map<string, string[]> {
  const declaredIn = new Map<string, Set<string>>()
  for (const { file, source } of files) {
    for (const name of exportedDeclarations(source, file)) {
      const set = declaredIn.get(name) ?? new Set<string>()
      set.add(file)
      declaredIn.set(name, set)
    }
  }
  return new Map([...declaredIn].filter(([, set]) => set.size > 1).map(([name, set]) => [name, [...set].sort()]))
}

describe('exported type names', () => {
  const files = packageSources().map((path) => ({
    file: relative(ROOT, path),
    source: readFileSync(path, 'utf8'),
  }))
  const duplicated = duplicatedNames(files)

  it('reads the packages (or it checks nothing)', () => {
    expect(files.length).toBeGreaterThan(100)
    expect(files.flatMap(({ file, source }) => exportedDeclarations(source, file)).length).toBeGreaterThan(500)
  })

  it('are declared in one file each', () => {
    const unexpected = [...duplicated].map(([name, declaredIn]) => `${name}: ${declaredIn.join(', ')}`)
    expect(unexpected).toEqual([])
  })
})

describe('the duplicate check', () => {
  it('catches a name declared in two files, whatever the kind of declaration', () => {
    const found = duplicatedNames([
      { file: 'a/one.ts', source: 'export interface Page { items: string[] }\nexport type Only = 1' },
      { file: 'b/two.ts', source: 'export class Page {}' },
      { file: 'c/three.tsx', source: 'export enum Page { A }\nexport const view = <div />' },
    ])
    expect([...found]).toEqual([['Page', ['a/one.ts', 'b/two.ts', 'c/three.tsx']]])
  })

  it('ignores re-exports, local declarations, comments and strings', () => {
    const found = duplicatedNames([
      { file: 'a/one.ts', source: 'export type Page = { n: number }' },
      {
        file: 'b/two.ts',
        source: [
          "export type { Page } from '../a/one.js'",
          'type Local = 1',
          '// export interface Page {}',
          "const sample = 'export class Page {}'",
          'interface Page2 {}',
        ].join('\n'),
      },
      { file: 'c/three.ts', source: 'interface Page { local: true }' },
    ])
    expect([...found]).toEqual([])
  })
})
