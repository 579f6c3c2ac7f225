/**
 * `GET /log/checkpoint`, `GET /log/proof`, `GET /log/entries` (RFC-ACDP-0012 §8) on a registry advertising
 * `acdp-registry-transparency-log`; without the profile they answer 501 not_implemented. Query parsing and
 * the mode rules live here; the log itself in log/transparency-log.ts.
 */
import {
  LogCheckpoint,
  LogConsistency,
  LogEntries,
  LogInclusion,
  RegistryErrorEnvelope,
  WitnessedLogCheckpoint,
} from '@acdp/protocol'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { ACDP_MEDIA_TYPE, RegistryError } from '../core/errors.js'
import { isCtxId } from '../core/context-id.js'
import type { Reader } from '../retrieval/retrieval.js'
import type { TransparencyLog } from './transparency-log.js'

/** A decimal tree position: no sign, no leading zeros, a safe integer. */
const POSITION = /^(0|[1-9][0-9]{0,15})$/

export interface LogRoutesOptions {
  /** Undefined without the profile: every route answers 501. */
  log: TransparencyLog | undefined
  /** The checkpoint body: bare, or with verified witness cosignatures (RFC-ACDP-0015 §9). */
  renderCheckpoint?: (checkpoint: LogCheckpoint, checkpointJson: string) => string
  /** Reader with the anonymous-read gate (ctx_id inclusion: retrieval visibility rules apply). */
  resolveReader: (request: FastifyRequest) => Promise<Reader>
  /** Reader without the gate: an anonymous auditor still gets leaf hashes, never leaf contents it may not see. */
  identifyReader: (request: FastifyRequest) => Promise<Reader>
}

type Query = Record<string, string | string[] | undefined>

export function registerLogRoutes(app: FastifyInstance, options: LogRoutesOptions): void {
  const errors = { '4xx': RegistryErrorEnvelope, '5xx': RegistryErrorEnvelope }
  const requireLog = (): TransparencyLog => {
    if (!options.log) {
      throw new RegistryError(
        'not_implemented',
        'This registry keeps no transparency log (acdp-registry-transparency-log is not advertised).',
      )
    }
    return options.log
  }
  const send = (reply: FastifyReply, json: string, cacheControl: string) =>
    reply.header('content-type', ACDP_MEDIA_TYPE).header('cache-control', cacheControl).send(json)

  app.get(
    '/log/checkpoint',
    {
      config: { auth: 'public' },
      schema: {
        summary: 'The current signed checkpoint (RFC-ACDP-0012 §8.1)',
        description:
          'Covers every publish acknowledged before the request. Bare checkpoint, or ' +
          '`{log_checkpoint, witness_signatures}` when at least one witness cosignature verified.',
        response: { 200: { anyOf: [LogCheckpoint, WitnessedLogCheckpoint] }, ...errors },
      },
    },
    async (_request, reply) => {
      const { checkpoint, json } = await requireLog().currentCheckpoint()
      const body = options.renderCheckpoint ? options.renderCheckpoint(checkpoint, json) : json
      return send(reply, body, 'no-cache')
    },
  )

  app.get(
    '/log/proof',
    {
      config: { auth: 'reader' },
      schema: {
        summary: 'Inclusion proof (ctx_id or leaf_index [, tree_size]) or consistency proof (first, second)',
        querystring: {
          type: 'object',
          properties: {
            ctx_id: { type: 'string' },
            leaf_index: { type: 'string' },
            tree_size: { type: 'string' },
            first: { type: 'string' },
            second: { type: 'string' },
          },
        },
        response: { 200: { anyOf: [LogInclusion, LogConsistency] }, ...errors },
      },
    },
    async (request: FastifyRequest<{ Querystring: Query }>, reply) => {
      const log = requireLog()
      const q = request.query
      const present = (name: string) => q[name] !== undefined
      const inclusion = present('ctx_id') || present('leaf_index') || present('tree_size')
      const consistency = present('first') || present('second')
      if (inclusion === consistency) {
        throw new RegistryError(
          'schema_violation',
          'Give exactly one mode: ctx_id or leaf_index (optionally tree_size), or first and second.',
        )
      }
      if (consistency) {
        const first = position(q, 'first', true) as number
        const second = position(q, 'second', true) as number
        // Proofs between fixed sizes never change; only the embedded checkpoint's timestamp may.
        return send(reply, await log.consistency(first, second), 'public, max-age=60')
      }
      const treeSize = position(q, 'tree_size', false)
      if (present('ctx_id') === present('leaf_index')) {
        throw new RegistryError('schema_violation', 'Give exactly one of ctx_id and leaf_index.')
      }
      if (present('ctx_id')) {
        const ctxId = single(q, 'ctx_id')
        if (!isCtxId(ctxId)) throw new RegistryError('schema_violation', 'ctx_id is not a well-formed acdp:// id.')
        const reader = await options.resolveReader(request)
        const answer = await log.inclusionByCtxId(ctxId, reader, treeSize)
        return send(reply, answer.json, 'private, no-store')
      }
      const reader = await options.identifyReader(request)
      const answer = await log.inclusionByIndex(position(q, 'leaf_index', true) as number, reader, treeSize)
      return send(reply, answer.json, 'private, no-store')
    },
  )

  app.get(
    '/log/entries',
    {
      config: { auth: 'reader' },
      schema: {
        summary: 'Leaves [start, end) with their leaf hashes (RFC-ACDP-0012 §8.3)',
        description: 'At most 1000 entries per page; continue from start + entries.length.',
        querystring: { type: 'object', properties: { start: { type: 'string' }, end: { type: 'string' } } },
        response: { 200: LogEntries, ...errors },
      },
    },
    async (request: FastifyRequest<{ Querystring: Query }>, reply) => {
      const log = requireLog()
      const start = position(request.query, 'start', true) as number
      const end = position(request.query, 'end', true) as number
      const reader = await options.identifyReader(request)
      return send(reply, await log.entries(start, end, reader), 'private, no-store')
    },
  )
}

function single(query: Query, name: string): string {
  const value = query[name]
  if (typeof value !== 'string') throw new RegistryError('schema_violation', `${name} must be given exactly once.`)
  return value
}

function position(query: Query, name: string, required: boolean): number | undefined {
  if (query[name] === undefined) {
    if (required) throw new RegistryError('schema_violation', `${name} is required.`)
    return undefined
  }
  const value = single(query, name)
  if (!POSITION.test(value) || !Number.isSafeInteger(Number(value))) {
    throw new RegistryError('schema_violation', `${name} must be a non-negative decimal integer.`)
  }
  return Number(value)
}
