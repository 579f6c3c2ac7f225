/**
 * What every fuzzed answer must satisfy: never a 5xx, never a stack trace or an internal path, and every error
 * in the service's own envelope. Returns the problems found (empty: the answer is acceptable).
 */
import { fileURLToPath } from 'node:url'
import type { WireAnswer } from './raw-http.js'

const REPOSITORY_ROOT = fileURLToPath(new URL('../..', import.meta.url)).replace(/\/$/, '')

/** Marks of leaked internals: stack frames, Node internals, module paths, source locations. */
const LEAK_PATTERNS: Array<[string, RegExp]> = [
  ['stack frame', /\n\s+at [^\n]*[(/:]/],
  ['node internals', /node:internal|internal\/(?:modules|process)/],
  ['module path', /node_modules\//],
  ['source location', /\.(?:ts|js|mjs|cjs):\d+:\d+/],
  ['file url', /file:\/\/\//],
  ['repository path', new RegExp(REPOSITORY_ROOT.replaceAll(/[.*+?^${}()|[\]\\]/g, '\\$&'))],
  ['sql', /\b(?:SQLITE_[A-Z]+|syntax error at or near|duplicate key value violates|relation "[^"]+" does not exist)/],
]

export interface Judgement {
  /** Short, stable description used to group findings ("" when acceptable). */
  problems: string[]
}

export function judgeAnswer(
  answer: WireAnswer,
  checkErrorEnvelope: (status: number, body: unknown) => string | undefined,
): string[] {
  const problems: string[] = []
  if (answer.status >= 500) problems.push(`status ${answer.status}`)
  const text = `${answer.headerText}\n${answer.body.toString('utf8')}`
  for (const [name, pattern] of LEAK_PATTERNS) if (pattern.test(text)) problems.push(`leak: ${name}`)
  if (answer.status >= 400 && answer.body.length > 0 && /\r\ncontent-type:[^\r\n]*json/i.test(answer.headerText)) {
    let parsed: unknown
    try {
      parsed = JSON.parse(answer.body.toString('utf8'))
    } catch {
      problems.push('error body is not JSON')
    }
    if (parsed !== undefined) {
      const envelope = checkErrorEnvelope(answer.status, parsed)
      if (envelope !== undefined) problems.push(`envelope: ${envelope}`)
    }
  } else if (answer.status >= 400 && answer.body.length > 0) {
    problems.push('error body is not JSON')
  }
  return problems
}
