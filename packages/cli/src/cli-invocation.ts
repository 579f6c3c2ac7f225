/**
 * How a user reaches this very CLI from their shell, for the hints `acdp dev` and `acdp demo` print: the
 * linked bin when npm linked it (`npx acdp`), else the script itself through the project's pinned Node
 * (`npx node packages/cli/dist/bin/acdp.js`). Never a bare `npx acdp` without a local link, which npx would try
 * to fetch from the public registry.
 */
import { existsSync } from 'node:fs'
import { join, relative } from 'node:path'

/** The command prefix to print in hints, e.g. `npx acdp` or `npx node packages/cli/dist/bin/acdp.js`. */
export function describeCliInvocation(cwd: string): string {
  if (existsSync(join(cwd, 'node_modules', '.bin', 'acdp'))) return 'npx acdp'
  const script = process.argv[1]
  if (script === undefined) return 'acdp'
  const shown = relative(cwd, script)
  return `npx node ${shown === '' || shown.startsWith('..') ? script : shown}`
}
