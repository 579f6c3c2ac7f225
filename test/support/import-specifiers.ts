/**
 * The module specifiers a source file names, read from its syntax tree (TypeScript's parser), so an import in a
 * comment or a string (a test's sample source, a doc comment's example) is not one, and a statement split over
 * lines is.
 *
 * Kinds, as `verbatimModuleSyntax` (tsconfig.base.json) emits them:
 * - `runtime`: `import … from 'x'`, `import 'x'`, `export … from 'x'`, `import('x')` with a literal, `require('x')`,
 *   `createRequire(…)('x')`, `new Function('s', 'return import(s)')('x')`, `require.resolve('x')`, `import.meta.resolve('x')`, `import x = require('x')`. Under
 *   `verbatimModuleSyntax` an `import { type A } from 'x'` is still emitted (as `import {} from 'x'`), so it is
 *   runtime too.
 * - `type`: `import type … from 'x'`, `export type … from 'x'`, `typeof import('x')` in a type, and
 *   `declare module 'x' { … }` (an augmentation of x's types); erased from the JavaScript output.
 */
import ts from 'typescript'

export interface Specifier {
  specifier: string
  kind: 'runtime' | 'type'
}

function scriptKindOf(fileName: string): ts.ScriptKind {
  if (fileName.endsWith('.tsx')) return ts.ScriptKind.TSX
  if (fileName.endsWith('.jsx')) return ts.ScriptKind.JSX
  if (/\.[cm]?js$/.test(fileName)) return ts.ScriptKind.JS
  return ts.ScriptKind.TS
}

function literalText(node: ts.Node | undefined): string | undefined {
  return node !== undefined && (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node))
    ? node.text
    : undefined
}

/**
 * `require`, `require.resolve`, `import.meta.resolve`, `createRequire(…)` and `new Function(…, 'return import(…)')`
 * (the committed bins' ES5 spelling of a dynamic import): callees whose argument is a module.
 */
function isModuleLoader(callee: ts.Expression): boolean {
  if (ts.isIdentifier(callee)) return callee.text === 'require'
  if (ts.isParenthesizedExpression(callee)) return isModuleLoader(callee.expression)
  if (ts.isNewExpression(callee)) {
    const body = literalText(callee.arguments?.at(-1))
    return ts.isIdentifier(callee.expression) && callee.expression.text === 'Function' && /\bimport\(/.test(body ?? '')
  }
  if (ts.isCallExpression(callee))
    return ts.isIdentifier(callee.expression) && callee.expression.text === 'createRequire'
  if (ts.isPropertyAccessExpression(callee) && callee.name.text === 'resolve') {
    const target = callee.expression
    if (ts.isIdentifier(target)) return target.text === 'require'
    return ts.isMetaProperty(target) && target.keywordToken === ts.SyntaxKind.ImportKeyword
  }
  return false
}

export function specifiersOf(text: string, fileName: string): Specifier[] {
  const source = ts.createSourceFile(fileName, text, ts.ScriptTarget.Latest, false, scriptKindOf(fileName))
  const found: Specifier[] = []
  const add = (specifier: string | undefined, kind: Specifier['kind']) => {
    if (specifier !== undefined) found.push({ specifier, kind })
  }
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) {
      add(literalText(node.moduleSpecifier), node.importClause?.isTypeOnly === true ? 'type' : 'runtime')
    } else if (ts.isExportDeclaration(node)) {
      add(literalText(node.moduleSpecifier), node.isTypeOnly ? 'type' : 'runtime')
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      add(literalText(node.moduleReference.expression), node.isTypeOnly ? 'type' : 'runtime')
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)) {
      add(literalText(node.argument.literal), 'type')
    } else if (ts.isModuleDeclaration(node) && ts.isStringLiteral(node.name)) {
      add(node.name.text, 'type')
    } else if (ts.isCallExpression(node)) {
      const isDynamicImport = node.expression.kind === ts.SyntaxKind.ImportKeyword
      if (isDynamicImport || isModuleLoader(node.expression)) add(literalText(node.arguments[0]), 'runtime')
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

/**
 * The package a bare specifier names (`@scope/name/sub` → `@scope/name`, `name/sub` → `name`); undefined for a
 * relative or absolute path, a `#` subpath import and a URL, which includes every `node:` builtin. An unprefixed
 * builtin name is read as a package: the repository imports builtins as `node:…`, and in the console's browser
 * bundle `buffer` is the npm package of that name.
 */
export function packageNameOf(specifier: string): string | undefined {
  if (/^[./#]/.test(specifier) || /^[a-z][a-z0-9+.-]*:/i.test(specifier)) return undefined
  const parts = specifier.split('/')
  if (specifier.startsWith('@')) return parts.length >= 2 && parts[1] !== '' ? `${parts[0]}/${parts[1]}` : undefined
  return parts[0]
}
