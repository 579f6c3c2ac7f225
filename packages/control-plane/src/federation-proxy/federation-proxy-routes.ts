/**
 * GET /contexts/*ctxId: the federation proxy (product spec "Federation proxy"), key/JWT, gated by the policy
 * action `context.retrieve`. The answer is the upstream's bytes (or an error envelope), never re-serialised.
 */
import type { FastifyReply, FastifyRequest } from 'fastify'
import { ControlPlaneError } from '../core/errors.js'
import { parseProxiedCtxId } from '../core/proxied-ctx-id.js'
import { type FederationDeps, proxyContext } from './federation-proxy.js'
import type { RoutePlugin } from '../core/route-context.js'

const PREFIX = '/contexts/'

export const contextRoutes: RoutePlugin = async (app, { enrollments, gates, federation, tokens }) => {
  const deps: FederationDeps = {
    ...federation,
    enrollments,
    log: app.log,
    onOutcome: (outcome) => tokens.metrics.federationRequests.inc({ outcome }),
  }
  app.get(
    '/contexts/*',
    {
      schema: {
        tags: ['federation'],
        summary: 'Retrieve a context from the registry that owns it (federation proxy)',
        description:
          'The ctxId is `acdp://<authority>/<uuid>`, raw or percent-encoded. 2xx and 4xx answers of the registry ' +
          'are relayed verbatim; 429 becomes 503 FEDERATION_UPSTREAM_RATE_LIMITED; failures are 502. The ' +
          "registry is read with the enrollment's read credential when it holds one (else anonymously).",
      },
    },
    async (request: FastifyRequest, reply: FastifyReply) => {
      const raw = rawCtxId(request.url)
      const principal = request.principal
      if (principal === undefined) throw new ControlPlaneError('UNAUTHORIZED', 'a valid bearer credential is required')
      const { ctxId } = parseProxiedCtxId(raw)
      gates.policy.enforce('context.retrieve', principal, request.tenantId, ctxId)
      await gates.quotas.consume({
        action: 'context.retrieve',
        tenantId: request.tenantId,
        agentDid: principal.subject,
      })
      const answer = await proxyContext(deps, request.tenantId, raw)
      return reply
        .code(answer.status)
        .header('content-type', answer.contentType ?? 'application/octet-stream')
        .send(answer.body)
    },
  )
}

/** The wildcard part of the raw request URL (before any query string). */
function rawCtxId(url: string): string {
  const path = url.split('?', 1)[0] ?? ''
  return path.startsWith(PREFIX) ? path.slice(PREFIX.length) : ''
}
