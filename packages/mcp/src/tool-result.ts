/**
 * What a tool call answers. A success is the JSON document as text (and as structuredContent, for clients that
 * read it), refused when its text exceeds the result cap. A failure is an `isError` result — never a JSON-RPC
 * error, never a crash — whose one line names a code and says why; the model reading it can correct its call.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js'
import { isProtocolError } from '@acdp/protocol'

/** A failure a tool reports as its result: `code` is stable (documented in docs/integrations/mcp.md). */
export class ToolError extends Error {
  override readonly name = 'ToolError'
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message)
  }
}

/** The JSON text of `value`, or a ToolError `result_too_large` when it exceeds `maxBytes`. */
export function boundedJson(value: unknown, maxBytes: number): string {
  const text = JSON.stringify(value, null, 2)
  const bytes = Buffer.byteLength(text, 'utf8')
  if (bytes > maxBytes) {
    throw new ToolError(
      'result_too_large',
      `the result is ${bytes} bytes, over this server's cap of ${maxBytes}; narrow the request (a smaller limit, depth or node count)`,
    )
  }
  return text
}

export function jsonResult(value: Record<string, unknown>, maxBytes: number): CallToolResult {
  return { content: [{ type: 'text', text: boundedJson(value, maxBytes) }], structuredContent: value }
}

/** The error result for anything a tool threw: its code and a one-line message. */
export function errorResult(error: unknown): CallToolResult {
  const { code, message } = describeFailure(error)
  return { content: [{ type: 'text', text: `${code}: ${message}` }], isError: true }
}

/** A stable code and a one-line message for a failure (ToolError, ProtocolError, or anything else). */
export function describeFailure(error: unknown): { code: string; message: string } {
  if (error instanceof ToolError) return { code: error.code, message: oneLine(error.message) }
  if (isProtocolError(error)) {
    // request_rejected carries the registry's own code (not_found, schema_violation…): name that one.
    const served = error.code === 'request_rejected' ? error.details?.['code'] : undefined
    if (typeof served !== 'string') return { code: error.code, message: oneLine(error.message) }
    // The SDK's message already starts with that code: say it once.
    const message = error.message.startsWith(`${served}: `) ? error.message.slice(served.length + 2) : error.message
    return { code: served, message: oneLine(message + fieldErrors(error.details?.['details'])) }
  }
  if (error instanceof Error && error.name === 'TimeoutError') {
    return { code: 'deadline_exceeded', message: 'no answer before the deadline' }
  }
  return { code: 'internal_error', message: oneLine(error instanceof Error ? error.message : String(error)) }
}

/** The registry's field-level explanation of a refused body (`details.errors`), the first five, as `; path: rule`. */
function fieldErrors(details: unknown): string {
  const errors = (details as { errors?: unknown } | undefined)?.errors
  if (!Array.isArray(errors)) return ''
  return errors
    .slice(0, 5)
    .map((entry) => entry as { path?: unknown; message?: unknown })
    .filter((entry) => typeof entry.path === 'string' && typeof entry.message === 'string')
    .map((entry) => `; ${String(entry.path)}: ${String(entry.message)}`)
    .join('')
}

function oneLine(text: string): string {
  // control characters in this pattern are deliberate: a remote string must not break the one-line error
  const flat = text.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ').trim()
  return flat.length > 500 ? `${flat.slice(0, 499)}…` : flat
}
