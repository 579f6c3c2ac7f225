/**
 * trace_lineage: the `derived_from` walk (RFC-ACDP-0006 §4.1) from a context, each node read from the registry
 * of its own authority and verified by the get_context pipeline, under the walk's traversal limits — capped here
 * at the RFC defaults, and the whole walk inside the call's deadline. Answers what `acdp trace --json` prints.
 */
import {
  createProfileLookup,
  createRegistryJsonReader,
  WALK_DEFAULTS,
  type VerificationReport,
  verifyWithEvidence,
  walkDerivedFrom,
  type WalkResult,
  authorityOfCtxId,
} from '@acdp/protocol'
import { z } from 'zod'
import type { ToolContext, ToolDefinition } from '../tool-context.js'
import { ToolError } from '../tool-result.js'
import { ctxIdInput } from './input-shapes.js'

const input = {
  ctx_id: ctxIdInput,
  max_depth: z.number().int().min(0).max(WALK_DEFAULTS.maxDepth).optional().describe('hops below the root'),
  max_nodes: z.number().int().min(1).max(WALK_DEFAULTS.maxTotalNodes).optional().describe('contexts fetched in all'),
  max_fanout: z
    .number()
    .int()
    .min(1)
    .max(WALK_DEFAULTS.maxFanoutPerContext)
    .optional()
    .describe('derived_from entries followed per context'),
  partial: z.boolean().default(true).describe('on a fanout overrun, walk the first entries and report the rest'),
}

export function traceLineageTool(context: ToolContext): ToolDefinition<typeof input> {
  return {
    name: 'trace_lineage',
    title: 'Trace lineage',
    description:
      "Walks a context's derived_from chain across registries, verifying every node as get_context does. Answers the nodes (ctx_id, depth, title, verification), the failures, whether the walk is complete, and the unwalked frontier when a limit truncated it.",
    input,
    annotations: { readOnlyHint: true, openWorldHint: true },
    run: async (args, signal) => {
      const { access } = context
      if (authorityOfCtxId(args.ctx_id) === undefined) throw new ToolError('invalid_ctx_id', 'not a ctx_id')
      const own = await access.registryAuthority(signal)
      const read = createRegistryJsonReader({ fetch: access.fetch, signal })
      const profiles = createProfileLookup(read)
      const notes = new Map<string, string[]>()
      const result = await walkDerivedFrom(args.ctx_id, {
        controls: {
          ...(args.max_depth === undefined ? {} : { maxDepth: args.max_depth }),
          ...(args.max_nodes === undefined ? {} : { maxTotalNodes: args.max_nodes }),
          ...(args.max_fanout === undefined ? {} : { maxFanoutPerContext: args.max_fanout }),
          totalWalkTimeoutMs: context.callTimeoutMs,
        },
        onOverrun: args.partial ? 'surface-partial-result' : 'abort',
        registryUrlOf: (authority) => access.registryUrlOf(authority, own),
        fetch: access.fetch,
        signal,
        verifyNode: async (envelope, node) => {
          const nodeRead = createRegistryJsonReader({ fetch: access.fetch, signal: node.signal })
          const verified = await verifyWithEvidence(nodeRead, node.registryUrl, envelope, {
            resolver: node.resolver,
            trustedWitnesses: [],
            profiles,
          })
          notes.set(node.ctxId, verified.notes)
          return verified.report
        },
      })
      return walkDocument(result, notes)
    },
  }
}

/** The walk without the fetched envelopes (get_context returns one), each report with its notes. */
function walkDocument(result: WalkResult, notes: ReadonlyMap<string, string[]>): Record<string, unknown> {
  const withNotes = <T extends { ctxId: string; verification?: VerificationReport }>(entry: T) =>
    entry.verification === undefined
      ? entry
      : { ...entry, verification: { ...entry.verification, notes: notes.get(entry.ctxId) ?? [] } }
  return {
    ...result,
    nodes: result.nodes.map(({ envelope, ...node }) => ({ ...withNotes(node), title: envelope.body['title'] })),
    failures: result.failures.map(withNotes),
  }
}
