/**
 * `POST /contexts` (RFC-ACDP-0003) and `GET /contexts/{ctx_id}[/body]` (RFC-ACDP-0004 §2): HTTP shape only —
 * schemas, media types, status codes and headers. Behaviour lives in publish/publish.ts and retrieval/retrieval.ts.
 */
import { PublishRequest, PublishResponse, RegistryErrorEnvelope } from '@acdp/protocol'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { RegistryDeps } from '../core/deps.js'
import { ACDP_MEDIA_TYPE } from '../core/errors.js'
import { requireJsonMediaType } from '../core/http/json-body.js'
import type { ContextCache } from '../retrieval/context-cache.js'
import { parseCtxIdPath } from '../core/context-id.js'
import { type PublishSettings, publishContext } from './publish.js'
import { type Reader, type RetrievalSettings, renderContextEnvelope, retrieveContext } from '../retrieval/retrieval.js'
import { cacheControlFor, type RequestScopes } from '../auth/read-access.js'

/** RFC-ACDP-0003 §6.1: 1–256 printable ASCII characters; anything else is treated as absent (§6.2.1 step 1). */
const IDEMPOTENCY_KEY = /^[\x20-\x7e]{1,256}$/
/** X-Run-Id is echoed into events: keep it short and printable, otherwise ignore it. */
const RUN_ID = /^[\x21-\x7e]{1,256}$/

export interface ContextRoutesOptions {
  deps: RegistryDeps
  cache: ContextCache
  publish: PublishSettings
  retrieval: RetrievalSettings
  /** The caller and its tenant (reads behind the anonymous-read gate; publishes bound to the bearer's agent). */
  scopes: Pick<RequestScopes, 'reader' | 'publisher'>
  /** `Vary: Authorization` is sent when answers depend on the credential (anonymous reads disabled). */
  varyOnAuthorization: boolean
}

export function registerContextRoutes(app: FastifyInstance, options: ContextRoutesOptions): void {
  const { deps, cache } = options

  app.post(
    '/contexts',
    {
      config: { auth: 'agent' },
      preParsing: requireJsonMediaType,
      schema: {
        summary: 'Publish a signed context',
        description:
          'RFC-ACDP-0003 §2.1 pipeline. 201 with Location for a new context; 200 with the stored response for an ' +
          'idempotent replay (same Idempotency-Key and content_hash). Body: application/acdp+json.',
        body: PublishRequest,
        headers: {
          type: 'object',
          properties: {
            'idempotency-key': { type: 'string', description: '1–256 printable ASCII characters (RFC-ACDP-0003 §6)' },
            'x-run-id': { type: 'string', description: 'echoed as run_id in the context_published event' },
          },
        },
        response: {
          201: PublishResponse,
          200: PublishResponse,
          '4xx': RegistryErrorEnvelope,
          '5xx': RegistryErrorEnvelope,
        },
      },
    },
    async (request: FastifyRequest, reply: FastifyReply) => {
      const body = request.body as PublishRequest
      const writer = await options.scopes.publisher(request, body.agent_id)
      const result = await publishContext(deps, options.publish, cache, {
        request: body,
        tenant: writer.tenant,
        requestText: request.acdpRawBody as string,
        idempotencyKey: singleHeader(request.headers['idempotency-key'], IDEMPOTENCY_KEY),
        runId: singleHeader(request.headers['x-run-id'], RUN_ID),
      })
      return reply
        .code(result.status)
        .header('location', result.location)
        .header('content-type', ACDP_MEDIA_TYPE)
        .send(result.responseJson)
    },
  )

  app.get(
    '/contexts/*',
    {
      config: { auth: 'reader' },
      schema: {
        summary: 'Retrieve a context ({ctx_id}) or its bare body ({ctx_id}/body)',
        description:
          'The ctx_id is the percent-encoded acdp:// URI (a decoded acdp:// URI and <authority>/<uuid> are also ' +
          'accepted). Invisible contexts are 404, exactly like missing ones.',
        response: { '4xx': RegistryErrorEnvelope, '5xx': RegistryErrorEnvelope },
      },
    },
    async (request: FastifyRequest, reply: FastifyReply) => {
      let rest = pathAfterPrefix(request.url, '/contexts/')
      const bodyOnly = rest.endsWith('/body')
      if (bodyOnly) rest = rest.slice(0, -'/body'.length)
      const ctxId = parseCtxIdPath(rest)
      const reader: Reader = await options.scopes.reader(request)
      const found = await retrieveContext(deps, options.retrieval, cache, ctxId, reader)
      const visibility = found.origin === 'local' ? found.context.visibility : found.visibility
      const contentHash = found.origin === 'local' ? found.context.contentHash : found.contentHash
      const etag = `"${contentHash}"`
      reply
        .header('content-type', ACDP_MEDIA_TYPE)
        .header('etag', etag)
        .header('cache-control', cacheControlFor(visibility, bodyOnly ? 'body' : 'envelope'))
      if (options.varyOnAuthorization) reply.header('vary', 'Authorization')
      const bodyText = found.origin === 'local' ? found.context.bodyText : found.bodyText
      if (bodyOnly) {
        // The body is immutable, so its content_hash is a strong validator.
        if (request.headers['if-none-match'] === etag) return reply.code(304).send()
        return reply.send(bodyText)
      }
      const envelope =
        found.origin === 'local'
          ? renderContextEnvelope(found.context, found.status)
          : `{"body":${bodyText},"registry_state":${found.registryStateJson}${found.evidenceJson}}`
      return reply.send(envelope)
    },
  )
}

/** The raw (still percent-encoded) path after `prefix`, without the query string. */
export function pathAfterPrefix(url: string, prefix: string): string {
  const query = url.indexOf('?')
  const path = query === -1 ? url : url.slice(0, query)
  return path.slice(prefix.length)
}

function singleHeader(value: string | string[] | undefined, pattern: RegExp): string | undefined {
  return typeof value === 'string' && pattern.test(value) ? value : undefined
}
