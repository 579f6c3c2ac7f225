/** search_contexts: the registry's GET /contexts/search (RFC-ACDP-0005 §2), filters passed as its query. */
import { z } from 'zod'
import { getJson } from '../json-get.js'
import type { ToolContext, ToolDefinition } from '../tool-context.js'
import { ctxIdInput } from './input-shapes.js'

const short = (what: string) => z.string().min(1).max(200).optional().describe(what)

const input = {
  q: z.string().min(1).max(500).optional().describe('full-text terms'),
  type: short('context type, e.g. analysis'),
  domain: short('domain'),
  agent_id: short('producer DID'),
  tags: z.array(z.string().min(1).max(100)).max(20).optional().describe('every one of these tags'),
  status: short('registry status (default active)'),
  derived_from: ctxIdInput.optional().describe('contexts derived from this ctx_id'),
  limit: z.number().int().min(1).max(100).optional().describe('matches per page (default the registry’s)'),
  cursor: z.string().min(1).max(2000).optional().describe('next_cursor of a previous page'),
}

export function searchContextsTool(context: ToolContext): ToolDefinition<typeof input> {
  return {
    name: 'search_contexts',
    title: 'Search contexts',
    description:
      "Searches the registry's contexts by terms and filters (type, domain, producer, tags, status, derived_from) and answers one page of matches with the registry's next_cursor.",
    input,
    annotations: { readOnlyHint: true, openWorldHint: false },
    run: async (args, signal) => {
      const params = new URLSearchParams()
      for (const [name, value] of Object.entries(args)) {
        if (value === undefined) continue
        params.set(name, Array.isArray(value) ? value.join(',') : String(value))
      }
      const url = `${context.access.registryUrl}/contexts/search?${params}`
      const page = await getJson(context.access.fetch, url, {}, signal)
      return { page }
    },
  }
}
