/**
 * Links between the repository's Markdown documents resolve: the file a relative link names exists, and the
 * `#anchor` it names is a heading of that file (anchors as GitHub renders them). Pages move (docs/performance.md
 * became docs/performance/), and a link that silently points nowhere is how a reader loses a figure.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

const ROOT = fileURLToPath(new URL('..', import.meta.url))

function markdownFiles(dir: string): string[] {
  if (!existsSync(dir)) return []
  return readdirSync(dir).flatMap((name) => {
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) return []
    const path = join(dir, name)
    if (statSync(path).isDirectory()) return markdownFiles(path)
    return name.endsWith('.md') ? [path] : []
  })
}

/** The text outside fenced code blocks, so a shell comment (`# …`) or a sample link in a block is not read. */
function proseLines(text: string): string[] {
  let fenced = false
  return text.split('\n').filter((line) => {
    if (/^\s*```/.test(line)) {
      fenced = !fenced
      return false
    }
    return !fenced
  })
}

/**
 * GitHub's heading anchors: lower case, inline code marks and every character that is neither a letter, a digit,
 * a space, `-` nor `_` dropped, spaces turned into `-`; a repeated anchor gets `-1`, `-2`, … in order.
 */
export function headingAnchors(text: string): Set<string> {
  const seen = new Map<string, number>()
  const anchors = new Set<string>()
  for (const line of proseLines(text)) {
    const heading = /^#{1,6} (.+?)\s*#*\s*$/.exec(line)
    if (!heading?.[1]) continue
    const base = heading[1]
      .toLowerCase()
      .replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '')
      .replace(/ /g, '-')
    const count = seen.get(base) ?? 0
    seen.set(base, count + 1)
    anchors.add(count === 0 ? base : `${base}-${count}`)
  }
  return anchors
}

const LINK = /\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g

/** Every relative link of `file` that does not resolve, as `file: target`. */
function brokenLinks(file: string): string[] {
  const text = readFileSync(file, 'utf8')
  const broken: string[] = []
  for (const line of proseLines(text)) {
    for (const [, target = ''] of line.replace(/`[^`]*`/g, '').matchAll(LINK)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue // https:, mailto:
      const [path = '', anchor] = target.split('#')
      const resolved = path === '' ? file : join(dirname(file), decodeURIComponent(path))
      const where = `${relative(ROOT, file)}: ${target}`
      if (!existsSync(resolved)) {
        broken.push(where)
        continue
      }
      if (anchor === undefined || !resolved.endsWith('.md')) continue
      if (!headingAnchors(readFileSync(resolved, 'utf8')).has(decodeURIComponent(anchor))) broken.push(where)
    }
  }
  return broken
}

describe('documentation links', () => {
  it('computes anchors the way GitHub renders them', () => {
    const anchors = headingAnchors(
      [
        '# Idle memory (RSS)',
        '## Trust layer: receipts + transparency log (2026-11-24)',
        '### `GET /events?limit=100` from the index',
        '### Results (2026-11-22)',
        '### Results (2026-11-22)',
        '```sh',
        '# not a heading',
        '```',
      ].join('\n'),
    )
    expect([...anchors]).toEqual([
      'idle-memory-rss',
      'trust-layer-receipts--transparency-log-2026-11-24',
      'get-eventslimit100-from-the-index',
      'results-2026-11-22',
      'results-2026-11-22-1',
    ])
  })

  it('every relative link in the Markdown documents names a file and heading that exist', () => {
    const files = [
      join(ROOT, 'README.md'),
      ...markdownFiles(join(ROOT, 'docs')),
      ...markdownFiles(join(ROOT, 'packages')),
      ...markdownFiles(join(ROOT, 'deploy')),
      ...markdownFiles(join(ROOT, 'examples')),
    ]
    expect(files.length).toBeGreaterThan(10)
    expect(files.flatMap(brokenLinks)).toEqual([])
  })
})
