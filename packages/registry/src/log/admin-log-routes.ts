/**
 * `POST /admin/log/verify`: runs the transparency-log self-check on demand (mounted only when the log is on and
 * `auth.admin_tokens` is non-empty). Admin bearer compared in constant time against every configured token.
 */
import { createHash, timingSafeEqual } from 'node:crypto'
import type { FastifyInstance } from 'fastify'
import { RegistryError } from '../core/errors.js'
import type { TransparencyLog } from './transparency-log.js'

const BEARER = /^Bearer[ \t]+([^\s]+)[ \t]*$/i

export function registerAdminLogRoute(
  app: FastifyInstance,
  options: { log: TransparencyLog; adminTokens: readonly string[] },
) {
  const expected = options.adminTokens.map(digest)
  app.post(
    '/admin/log/verify',
    {
      schema: {
        summary: 'Recompute the log from stored leaves and compare with stored nodes and the last checkpoint',
        security: [{ adminBearer: [] }],
      },
    },
    async (request, reply) => {
      if (!isAdmin(request.headers.authorization, expected)) {
        throw new RegistryError('not_authorized', 'An admin bearer token is required.')
      }
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

/** @param header attacker-controlled. Every token is compared (no early exit), over equal-length digests. */
function isAdmin(header: string | undefined, expected: readonly Buffer[]): boolean {
  const match = typeof header === 'string' ? BEARER.exec(header) : null
  const presented = digest(match?.[1] ?? '')
  let ok = false
  for (const token of expected) ok = timingSafeEqual(presented, token) || ok
  return ok && match !== null
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest()
}
