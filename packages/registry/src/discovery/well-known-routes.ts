/**
 * `GET /.well-known/acdp.json` (RFC-ACDP-0007 §3), `GET /.well-known/did.json` (receipts profile) and
 * `GET /healthz` (readiness: storage answers).
 */
import { CapabilitiesDocument } from '@acdp/protocol'
import type { FastifyInstance, FastifyReply } from 'fastify'
import type { RegistryDeps } from '../core/deps.js'
import { ACDP_MEDIA_TYPE } from '../core/errors.js'

export function registerWellKnownRoutes(
  app: FastifyInstance,
  options: {
    deps: RegistryDeps
    capabilities: CapabilitiesDocument
    version: string
    /** The registry DID document (receipt keys); `/.well-known/did.json` is served only with receipts on. */
    didDocument?: Record<string, unknown>
  },
): void {
  // The document is fixed for the life of the process: serialize it once.
  const capabilitiesJson = JSON.stringify(options.capabilities)
  app.get(
    '/.well-known/acdp.json',
    {
      config: { auth: 'public' },
      schema: { summary: 'Capabilities document', response: { 200: CapabilitiesDocument } },
    },
    async (_request, reply: FastifyReply) =>
      reply
        .header('content-type', ACDP_MEDIA_TYPE)
        .header('cache-control', 'public, max-age=3600')
        .send(capabilitiesJson),
  )

  if (options.didDocument) {
    const didJson = JSON.stringify(options.didDocument)
    app.get(
      '/.well-known/did.json',
      {
        config: { auth: 'public' },
        schema: {
          summary: 'Registry DID document: current receipt key (assertionMethod) and retired ones (RFC-ACDP-0010 §9)',
        },
      },
      // Verifiers cache DID documents for 5 min to 24 h (RFC-ACDP-0001 §5.11): 300 s lets a rotation show quickly.
      async (_request, reply: FastifyReply) =>
        reply
          .header('content-type', 'application/did+json')
          .header('cache-control', 'public, max-age=300')
          .send(didJson),
    )
  }

  app.get(
    '/healthz',
    {
      config: { auth: 'public' },
      schema: {
        summary: 'Readiness: 200 when storage answers, 503 otherwise',
        response: {
          '2xx': HealthBody,
          503: HealthBody,
        },
      },
    },
    async (_request, reply: FastifyReply) => {
      const storage = await options.deps.store.checkHealth()
      return reply
        .code(storage ? 200 : 503)
        .header('cache-control', 'no-store')
        .send({ status: storage ? 'ok' : 'degraded', storage, version: options.version })
    },
  )
}

const HealthBody = {
  type: 'object',
  properties: { status: { type: 'string' }, storage: { type: 'boolean' }, version: { type: 'string' } },
  required: ['status', 'storage', 'version'],
} as const
