/**
 * `POST /admin/pinned-keys/reload` (product spec "Endpoints": admin bearer; playground builds only). Re-reads
 * `[[playground.pinned_keys]]` from the configuration source with every startup rule and swaps the set in one
 * step; a source startup would refuse is answered 400 and the current pins stay. Mounted only when
 * `playground.enabled` and `auth.admin_tokens` is non-empty.
 */
import { RegistryErrorEnvelope } from '@acdp/protocol'
import type { FastifyInstance } from 'fastify'
import { Type } from 'typebox'
import { ConfigError } from '../core/config.js'
import { RegistryError } from '../core/errors.js'
import type { PinnedKeyEntry, PinnedKeys } from './pinned-keys.js'

const ReloadBody = Type.Object({
  ok: Type.Literal(true),
  count: Type.Integer({ description: 'pinned keys now configured' }),
  valid_now: Type.Integer({ description: 'of which valid at this instant' }),
})

export function registerPinnedKeysReloadRoute(
  app: FastifyInstance,
  options: {
    adminTokens: readonly string[]
    pins: PinnedKeys
    reload: (() => readonly PinnedKeyEntry[]) | undefined
    clock: () => Date
  },
): void {
  if (options.adminTokens.length === 0) return
  app.post(
    '/admin/pinned-keys/reload',
    {
      config: { auth: 'admin' },
      schema: {
        summary: 'Reload the pinned agent keys (admin bearer; playground builds)',
        description:
          'Re-reads [[playground.pinned_keys]] from the configuration file and environment, validated with the ' +
          'startup rules, and replaces the set atomically. 400 schema_violation (current pins kept) when startup ' +
          'would refuse the source; 501 when the registry is embedded without a configuration source.',
        security: [{ adminBearer: [] }],
        response: { 200: ReloadBody, '4xx': RegistryErrorEnvelope, '5xx': RegistryErrorEnvelope },
      },
    },
    async (request, reply) => {
      if (options.reload === undefined) {
        throw new RegistryError('not_implemented', 'This registry has no configuration source to reload pins from.')
      }
      let entries: readonly PinnedKeyEntry[]
      try {
        entries = options.reload()
        options.pins.replace(entries)
      } catch (error) {
        if (!(error instanceof ConfigError) && !(error instanceof TypeError)) throw error
        request.log.warn({ reason: error.message }, 'pinned-key reload refused; the current pins stay')
        throw new RegistryError('schema_violation', 'The configuration would be refused at startup; pins unchanged.', {
          details: { reason: error.message },
        })
      }
      const valid = options.pins.validCount(options.clock().getTime())
      request.log.info({ count: entries.length, valid_now: valid }, 'pinned keys reloaded')
      return reply.header('cache-control', 'no-store').send({ ok: true, count: entries.length, valid_now: valid })
    },
  )
}
