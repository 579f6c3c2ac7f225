/**
 * `GET /lineages/{lineage_id}` and `GET /lineages/{lineage_id}/current` (RFC-ACDP-0004 §5). Lineage ids contain
 * colons; raw and percent-encoded forms are both accepted.
 */
import { RegistryErrorEnvelope, type SigningKey } from '@acdp/protocol'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { RegistryDeps } from '../core/deps.js'
import { ACDP_MEDIA_TYPE } from '../core/errors.js'
import { renderHeadReceiptMember } from '../receipts/head-receipts.js'
import { type Reader, readLineage, readLineageHead, renderContextEnvelope } from '../retrieval/retrieval.js'
import { cacheControlFor } from '../auth/read-access.js'

const LineageParams = {
  type: 'object',
  properties: { lineage_id: { type: 'string', description: 'lin:sha256:<64 hex>' } },
  required: ['lineage_id'],
} as const

export interface LineageRoutesOptions {
  deps: RegistryDeps
  resolveReader: (request: FastifyRequest) => Promise<Reader>
  /** With `acdp-registry-head-receipts`: every `/current` 200 carries a fresh `lineage_head_receipt`. */
  headReceipts?: { key: SigningKey; registryDid: string }
}

export function registerLineageRoutes(app: FastifyInstance, options: LineageRoutesOptions): void {
  const { deps } = options

  app.get(
    '/lineages/:lineage_id',
    {
      config: { auth: 'reader' },
      schema: {
        summary: 'Every version of a lineage the reader may retrieve, version ascending',
        params: LineageParams,
        response: { '4xx': RegistryErrorEnvelope, '5xx': RegistryErrorEnvelope },
      },
    },
    async (request: FastifyRequest<{ Params: { lineage_id: string } }>, reply: FastifyReply) => {
      const reader = await options.resolveReader(request)
      const versions = await readLineage(deps, request.params.lineage_id, reader)
      const allPublic = versions.every((v) => v.context.visibility === 'public')
      return reply
        .header('content-type', ACDP_MEDIA_TYPE)
        .header('cache-control', allPublic ? 'public, max-age=60' : 'private, no-store')
        .send(`[${versions.map((v) => renderContextEnvelope(v.context, v.status)).join(',')}]`)
    },
  )

  app.get(
    '/lineages/:lineage_id/current',
    {
      config: { auth: 'reader' },
      schema: {
        summary:
          'The newest version neither superseded nor retracted that the reader may retrieve (expired heads included)',
        params: LineageParams,
        response: { '4xx': RegistryErrorEnvelope, '5xx': RegistryErrorEnvelope },
      },
    },
    async (request: FastifyRequest<{ Params: { lineage_id: string } }>, reply: FastifyReply) => {
      const reader = await options.resolveReader(request)
      const head = await readLineageHead(deps, request.params.lineage_id, reader)
      const receipt = options.headReceipts
        ? renderHeadReceiptMember(
            options.headReceipts.key,
            options.headReceipts.registryDid,
            head.context,
            head.status,
            deps.clock(),
          )
        : ''
      return reply
        .header('content-type', ACDP_MEDIA_TYPE)
        .header('etag', `"${head.context.contentHash}"`)
        .header(
          'cache-control',
          head.context.visibility === 'public'
            ? 'public, max-age=60'
            : cacheControlFor(head.context.visibility, 'envelope'),
        )
        .send(renderContextEnvelope(head.context, head.status, receipt))
    },
  )
}
