/**
 * Contexts as MCP resources: the template `acdp://{authority}/{id}`, so a client can attach a context to a
 * conversation by its ctx_id. Reading one answers the get_context document (the context and its verification
 * report), as JSON, under the same deadline, result cap and outbound policy as the tools.
 */
import { type McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js'
import { withDeadline } from './call-deadline.js'
import { lookUpContext } from './context-lookup.js'
import type { ToolContext } from './tool-context.js'
import { boundedJson, describeFailure } from './tool-result.js'

export function registerContextResource(server: McpServer, context: ToolContext): void {
  server.registerResource(
    'acdp-context',
    new ResourceTemplate('acdp://{authority}/{id}', { list: undefined }),
    {
      title: 'ACDP context',
      description: 'A context by its ctx_id, with the verifier’s per-stage report (as get_context answers it)',
      mimeType: 'application/json',
    },
    async (uri, _variables, extra) => {
      try {
        const document = await withDeadline(context.callTimeoutMs, extra.signal, (signal) =>
          lookUpContext(context.access, uri.href, { verify: true }, signal),
        )
        return {
          contents: [
            { uri: uri.href, mimeType: 'application/json', text: boundedJson(document, context.maxResultBytes) },
          ],
        }
      } catch (error) {
        // A resource read has no isError result: the failure is the request's error, with the same code and line.
        const { code, message } = describeFailure(error)
        throw new Error(`${code}: ${message}`, { cause: error })
      }
    },
  )
}
