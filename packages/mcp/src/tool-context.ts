/**
 * What every tool is given, and the one wrapper every tool handler runs through: the call deadline, the result
 * cap, and every failure turned into an `isError` result.
 */
import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js'
import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js'
import type { z } from 'zod'
import { type AcdpMcpConfig, DEFAULT_CALL_TIMEOUT_MS, DEFAULT_MAX_RESULT_BYTES } from './config.js'
import { withDeadline } from './call-deadline.js'
import type { StackAccess } from './stack-access.js'
import { errorResult, jsonResult } from './tool-result.js'

export interface ToolContext {
  config: AcdpMcpConfig
  access: StackAccess
  callTimeoutMs: number
  maxResultBytes: number
}

export function createToolContext(config: AcdpMcpConfig, access: StackAccess): ToolContext {
  return {
    config,
    access,
    callTimeoutMs: config.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS,
    maxResultBytes: config.maxResultBytes ?? DEFAULT_MAX_RESULT_BYTES,
  }
}

export interface ToolDefinition<Shape extends z.ZodRawShape> {
  name: string
  title: string
  description: string
  input: Shape
  annotations: ToolAnnotations
  /** Returns the JSON result document; throws ToolError / ProtocolError for a failure to report. */
  run: (args: z.infer<z.ZodObject<Shape>>, signal: AbortSignal) => Promise<Record<string, unknown>>
}

/** Registers `tool` on `server`; the SDK validates arguments against `input` (a bad one is a tool error too). */
export function registerTool<Shape extends z.ZodRawShape>(
  server: McpServer,
  context: ToolContext,
  tool: ToolDefinition<Shape>,
): void {
  const handler = async (args: unknown, extra: { signal?: AbortSignal }): Promise<CallToolResult> => {
    try {
      const value = await withDeadline(context.callTimeoutMs, extra.signal, (signal) =>
        tool.run(args as z.infer<z.ZodObject<Shape>>, signal),
      )
      return jsonResult(value, context.maxResultBytes)
    } catch (error) {
      return errorResult(error)
    }
  }
  server.registerTool(
    tool.name,
    { title: tool.title, description: tool.description, inputSchema: tool.input, annotations: tool.annotations },
    handler as never,
  )
}
