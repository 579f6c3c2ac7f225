/** The routes an app serves, for the fuzzer's coverage check (every route needs a seed). */

/**
 * `METHOD /path` of every route from Fastify's radix-tree print-out (`printRoutes({ commonPrefix: true })`): each
 * line holds one node's prefix and, when a route ends there, its methods in parentheses; a route's path is the
 * concatenation of the prefixes from the root. (`commonPrefix: false` is not used: it drops the static part in
 * front of a wildcard, printing `/contexts/*` as `/*`.)
 */
export function listRoutes(tree: string): string[] {
  const routes: string[] = []
  const stack: string[] = []
  for (const line of tree.split('\n')) {
    const match = /^([│ ]*)(?:[└├]── )(.*?)(?: \(([^)]*)\))?$/.exec(line)
    if (!match) continue
    const depth = (match[1] as string).length / 4
    stack.length = depth
    stack.push(match[2] as string)
    if (match[3]) {
      for (const method of match[3].split(', ')) {
        if (method !== 'HEAD') routes.push(`${method} ${stack.join('')}`)
      }
    }
  }
  return [...new Set(routes)].sort()
}
