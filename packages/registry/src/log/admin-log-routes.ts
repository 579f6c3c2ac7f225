/**
 * `POST /admin/log/verify`: runs the transparency-log self-check on demand (mounted only when the log is on and
 * `auth.admin_tokens` is non-empty). Admin bearer: `config.auth` (core/http/route-auth.ts).
 */
import type { FastifyInstance } from 'fastify'
import type { TransparencyLog } from './transparency-log.js'

export function registerAdminLogRoute(app: FastifyInstance, options: { log: TransparencyLog }) {
  app.post(
    '/admin/log/verify',
    {
      // Checked after the body is read, with the tolerant header form, as this route always has.
      config: { auth: 'admin-after-body' },
      schema: {
        summary: 'Recompute the log from stored leaves and compare with stored nodes and the last checkpoint',
        security: [{ adminBearer: [] }],
      },
    },
    async (_request, reply) => {
      const result = await options.log.selfCheck()
      return reply
        .code(result.ok ? 200 : 503)
        .header('cache-control', 'no-store')
        .send(
          result.ok
            ? { status: 'ok', tree_size: result.treeSize, checkpoint_tree_size: result.checkpointTreeSize }
            : { status: 'failed', tree_size: result.treeSize, reason: result.reason },
        )
    },
  )
}
