/**
 * publish_context: completes, hashes and signs a body with the configured agent key and publishes it to the
 * configured registry (as `acdp publish`). The key stays in this process: the result names the agent DID and
 * key id, never key material, and no error message carries it.
 */
import { createProducer } from '@acdp/protocol'
import { z } from 'zod'
import type { ToolContext, ToolDefinition } from '../tool-context.js'
import { ToolError } from '../tool-result.js'
import { ctxIdInput } from './input-shapes.js'

const input = {
  body: z
    .record(z.string(), z.unknown())
    .describe(
      'the context body: at least type, title, summary and payload; members left out are filled as acdp publish does (agent_id from the key, version 1, empty derived_from…)',
    ),
  derived_from: z
    .array(ctxIdInput)
    .max(100)
    .optional()
    .describe("ctx_ids this context was derived from (set as the body's derived_from)"),
  run_id: z
    .string()
    .min(1)
    .max(200)
    .optional()
    .describe('sent as X-Run-Id: the control plane files the context under this run'),
  idempotency_key: z.string().min(1).max(200).optional().describe('a retry with the same key returns the same ctx_id'),
  supersedes: ctxIdInput.optional().describe('publish a new version of this context'),
}

export function publishContextTool(context: ToolContext): ToolDefinition<typeof input> {
  return {
    name: 'publish_context',
    title: 'Publish a context',
    description:
      'Signs a context body with the agent key this server was started with and publishes it to its registry. Answers the assigned ctx_id, its location, the agent DID that signed it and whether it was an idempotent replay.',
    input,
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
    run: async (args, signal) => {
      const key = context.config.agentKey
      if (key === undefined) {
        throw new ToolError('no_agent_key', 'this server was started without an agent key (acdp mcp --key FILE)')
      }
      const body = args.derived_from === undefined ? args.body : { ...args.body, derived_from: args.derived_from }
      const { registryUrl } = context.access
      const producer = createProducer({ registryUrl, key, fetch: context.access.fetch })
      let result
      try {
        result = await producer.publish(body, {
          signal,
          ...(args.run_id === undefined ? {} : { runId: args.run_id }),
          ...(args.idempotency_key === undefined ? {} : { idempotencyKey: args.idempotency_key }),
          ...(args.supersedes === undefined ? {} : { supersedes: args.supersedes }),
        })
      } catch (error) {
        // The SDK refuses a body whose agent_id names another DID: the caller's input is wrong.
        if (error instanceof TypeError) throw new ToolError('invalid_body', error.message)
        throw error
      }
      return {
        ctx_id: result.ctxId,
        location: new URL(result.location, `${registryUrl}/`).href,
        status: result.status,
        replayed: result.replayed,
        agent_id: key.did,
        key_id: key.keyId,
      }
    },
  }
}
