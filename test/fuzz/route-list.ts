/** The routes an app serves, for the fuzzer's coverage check (every route needs a seed). */

/**
 * `METHOD /path` of every route from Fastify's route tree print-out (`commonPrefix: false`): each line holds a
 * path segment and, when a route ends there, its methods in parentheses.
 */
export function listRoutes(tree: string): string[] {
  const routes: string[] = []
  const stack: string[] = []
  for (const line of tree.split('\n')) {
    const match = /^([│ ]*)(?:[└├]── )(.*?)(?: \(([^)]*)\))?$/.exec(line)
    if (!match) continue
    const depth = (match[1] as string).length / 4
    stack.length = depth
    const segment = match[2] as string
    // A wildcard child prints as `*` under its parent's prefix, which lacks the separating slash.
    stack.push(segment.startsWith('*') && !stack.join('').endsWith('/') ? `/${segment}` : segment)
    if (match[3]) {
      for (const method of match[3].split(', ')) {
        if (method !== 'HEAD') routes.push(`${method} ${stack.join('')}`)
      }
    }
  }
  return [...new Set(routes)].sort()
}
