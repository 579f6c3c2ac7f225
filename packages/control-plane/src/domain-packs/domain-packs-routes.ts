/**
 * `GET /domain-packs` (product spec "Domain packs and routing"): `{ packs: DomainPack[] }`, key/JWT auth.
 */
import type { FastifyInstance } from 'fastify'
import type { DomainPackRegistry } from './domain-packs.js'

/** Registers `GET /domain-packs`. Authentication is the app's global hook, as for every non-public read. */
export function registerDomainPackRoutes(app: FastifyInstance, deps: { domainPacks: DomainPackRegistry }): void {
  app.get('/domain-packs', { schema: { summary: 'The domain packs this control plane loaded' } }, async () =>
    deps.domainPacks.describe(),
  )
}
