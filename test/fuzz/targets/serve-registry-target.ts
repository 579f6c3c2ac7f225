/**
 * The part every registry fuzz target shares: listen on a loopback port, list the routes the app registered (for
 * the coverage check), check answers against the registry's error envelope, and clean up the data folder.
 */
import { rmSync } from 'node:fs'
import type { TestRegistry } from '../../../packages/registry/test/support/registry-harness.js'
import { listRoutes } from '../route-list.js'
import type { FuzzSeed, FuzzTarget } from '../seed.js'

export async function serveRegistryTarget(
  name: string,
  registry: TestRegistry,
  seeds: FuzzSeed[],
  dir: string,
): Promise<FuzzTarget> {
  const routes = listRoutes(registry.app.printRoutes({ commonPrefix: true }))
  await registry.app.listen({ host: '127.0.0.1', port: 0 })
  const address = registry.app.server.address()
  return {
    name,
    port: typeof address === 'object' && address !== null ? address.port : 0,
    seeds,
    routes,
    checkErrorEnvelope: (status, body) => {
      const error = (body as { error?: { code?: unknown; message?: unknown } } | null)?.error
      if (typeof error !== 'object' || error === null) return `${status} without {"error":{…}}`
      if (typeof error.code !== 'string' || typeof error.message !== 'string')
        return `${status} error lacks code/message`
      return undefined
    },
    async close() {
      await registry.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
