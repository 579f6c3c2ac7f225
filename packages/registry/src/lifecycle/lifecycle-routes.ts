/**
 * `POST /contexts/{ctx_id}/retract|republish` (RFC-ACDP-0013 §6) and the admin forms
 * `POST /admin/contexts/{ctx_id}/retract|republish`: HTTP shape only. Behaviour lives in lifecycle/lifecycle.ts.
 *
 * Without the lifecycle profile both producer endpoints answer 501 not_implemented (RFC-ACDP-0013 §6). The admin
 * routes exist only when `auth.admin_tokens` is non-empty (otherwise they are 404 like any unknown path).
 */
import { RegistryErrorEnvelope, type SigningKey } from '@acdp/protocol'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { ACDP_MEDIA_TYPE, RegistryError, toRegistryError } from '../core/errors.js'
import { requireJsonMediaType } from '../core/http/json-body.js'
import { parseCtxIdPath } from '../core/context-id.js'
import {
  type LifecycleAction,
  type LifecycleDeps,
  type LifecycleResult,
  recordRegistryEvent,
  submitProducerEvent,
} from './lifecycle.js'
import { renderContextEnvelope } from '../retrieval/retrieval.js'
import { pathAfterPrefix } from '../publish/contexts-routes.js'
import type { RequestScopes } from '../auth/read-access.js'

export interface LifecycleRoutesOptions {
  lifecycle: LifecycleDeps
  /** The caller and its tenant (producer events), and the admin's tenant. */
  scopes: Pick<RequestScopes, 'lifecycleActor' | 'adminTenant'>
  /** `lifecycle.enabled` (the profile is advertised exactly then). */
  enabled: boolean
  /** `auth.admin_tokens`; the admin routes are mounted only when non-empty. */
  adminTokens: readonly string[]
  /** Signs registry-initiated events (RFC-ACDP-0013 §5); unsigned without one. */
  registrySigningKey?: SigningKey | undefined
}

const ACTION_PATH = /^(.+)\/(retract|republish)$/

const LifecycleRequestBody = {
  type: 'object',
  description: 'Closed envelope { "event": <acdp-lifecycle-event> } (RFC-ACDP-0013 §6).',
} as const

export function registerLifecycleRoutes(app: FastifyInstance, options: LifecycleRoutesOptions): void {
  const { lifecycle } = options

  app.post(
    '/contexts/*',
    {
      config: { auth: 'agent' },
      preParsing: requireJsonMediaType,
      schema: {
        summary: 'Retract ({ctx_id}/retract) or republish ({ctx_id}/republish) a context, producer-signed',
        description:
          'RFC-ACDP-0013 §6. 200 with the full-retrieval envelope; a byte-identical retry is 200 and appends ' +
          'nothing. 409 invalid_lifecycle_transition, 400 immutable_field, 403 not_authorized, 404 not_found, ' +
          '429 rate_limited. 501 without the acdp-registry-lifecycle profile.',
        body: LifecycleRequestBody,
        response: { '4xx': RegistryErrorEnvelope, '5xx': RegistryErrorEnvelope },
      },
    },
    async (request: FastifyRequest, reply: FastifyReply) => {
      const { ctxId, action } = readActionPath(request.url, '/contexts/')
      if (!options.enabled) {
        throw new RegistryError(
          'not_implemented',
          'Retraction is not offered by this registry (acdp-registry-lifecycle is not advertised).',
        )
      }
      const caller = await options.scopes.lifecycleActor(request)
      const result = await observed(lifecycle, action, () =>
        submitProducerEvent(lifecycle, { ctxId: parseCtxIdPath(ctxId), action, request: request.body, caller }),
      )
      return sendResult(reply, result)
    },
  )

  if (options.adminTokens.length === 0) return
  app.post(
    '/admin/contexts/*',
    {
      preParsing: requireJsonMediaType,
      // The body ({ "reason" }) is optional and has no schema: the lifecycle service checks it.
      config: { body: 'optional', auth: 'admin' },
      schema: {
        summary: 'Registry-initiated retract or republish (admin bearer)',
        description:
          'RFC-ACDP-0013 §6 "Registry-initiated events": actor is the registry DID. Body: optional { "reason" }. ' +
          '200 with the full-retrieval envelope; 409 invalid_lifecycle_transition; 404 not_found; 403 without an ' +
          'admin bearer; 501 without the lifecycle profile.',
        security: [{ adminBearer: [] }],
        response: { '4xx': RegistryErrorEnvelope, '5xx': RegistryErrorEnvelope },
      },
    },
    async (request: FastifyRequest, reply: FastifyReply) => {
      const { ctxId, action } = readActionPath(request.url, '/admin/contexts/')
      if (!options.enabled) {
        throw new RegistryError('not_implemented', 'Retraction is not enabled on this registry (lifecycle.enabled).')
      }
      const result = await observed(lifecycle, action, () =>
        recordRegistryEvent(lifecycle, {
          ctxId: parseCtxIdPath(ctxId),
          action,
          request: request.body,
          signingKey: options.registrySigningKey,
          tenantId: options.scopes.adminTenant(request),
        }),
      )
      return sendResult(reply, result)
    },
  )
}

/** `{ctx_id}/retract` or `{ctx_id}/republish` after `prefix`; anything else under POST is not a route (404). */
function readActionPath(url: string, prefix: string): { ctxId: string; action: LifecycleAction } {
  const match = ACTION_PATH.exec(pathAfterPrefix(url, prefix))
  if (!match) throw new RegistryError('not_found', 'Not found.')
  return { ctxId: match[1] as string, action: match[2] as LifecycleAction }
}

/** Counts the outcome (`acdp_registry_lifecycle_event_total{event,outcome}`) without changing it. */
async function observed(
  lifecycle: LifecycleDeps,
  action: LifecycleAction,
  run: () => Promise<LifecycleResult>,
): Promise<LifecycleResult> {
  const metrics = lifecycle.deps.metrics
  try {
    const result = await run()
    metrics?.recordLifecycleEvent(action, result.appended ? 'appended' : 'idempotent_retry')
    return result
  } catch (error) {
    metrics?.recordLifecycleEvent(action, toRegistryError(error).code)
    throw error
  }
}

function sendResult(reply: FastifyReply, result: LifecycleResult): FastifyReply {
  // Lifecycle state is mutable and the answer is the caller's own write: never cached.
  return reply
    .code(200)
    .header('content-type', ACDP_MEDIA_TYPE)
    .header('cache-control', 'no-store')
    .send(renderContextEnvelope(result.context, result.status))
}
