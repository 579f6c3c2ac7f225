/**
 * The ACDP MCP server: one McpServer per MCP session (the SDK binds a server to one transport), all of them
 * sharing one {@link StackAccess} (the outbound client and its connection pools, the learned registry authority).
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import type { AcdpMcpConfig } from './config.js'
import { registerContextResource } from './context-resource.js'
import { createStackAccess, type StackAccess } from './stack-access.js'
import { createToolContext, registerTool, type ToolContext } from './tool-context.js'
import { getContextTool, verifyContextTool } from './tools/context-tools.js'
import { publishContextTool } from './tools/publish-context.js'
import { getRunTool, listRunsTool } from './tools/run-tools.js'
import { searchContextsTool } from './tools/search-contexts.js'
import { traceLineageTool } from './tools/trace-lineage.js'

export const SERVER_NAME = 'acdp'
export const SERVER_VERSION = '0.1.0'

export interface AcdpMcp {
  /** A new MCP server with every tool and the context resource, for one session's transport. */
  createServer(): McpServer
  /** Closes what the sessions share (the outbound client this server made). */
  close(): Promise<void>
}

export function createAcdpMcp(config: AcdpMcpConfig): AcdpMcp {
  const access: StackAccess = createStackAccess(config)
  const context: ToolContext = createToolContext(config, access)
  return {
    createServer() {
      const server = new McpServer(
        { name: SERVER_NAME, version: SERVER_VERSION },
        {
          instructions:
            'ACDP provenance: publish signed contexts, retrieve and verify them (every stage with its state and reason), search them, trace their derived_from lineage, and read control-plane runs.',
        },
      )
      registerTool(server, context, publishContextTool(context))
      registerTool(server, context, getContextTool(context))
      registerTool(server, context, verifyContextTool(context))
      registerTool(server, context, searchContextsTool(context))
      registerTool(server, context, traceLineageTool(context))
      registerTool(server, context, listRunsTool(context))
      registerTool(server, context, getRunTool(context))
      registerContextResource(server, context)
      return server
    },
    close: () => access.close(),
  }
}
