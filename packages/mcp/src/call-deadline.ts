/**
 * Every tool call runs under one deadline: its signal aborts the call's outbound reads, and the call answers
 * `deadline_exceeded` when the deadline passes even if some read ignores the signal — so a slow or hostile
 * remote can hold a call up to the deadline and never beyond it. The MCP client's own cancellation aborts it too.
 */
import { ToolError } from './tool-result.js'

export async function withDeadline<T>(
  timeoutMs: number,
  clientSignal: AbortSignal | undefined,
  run: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const deadline = new AbortController()
  const signal = clientSignal === undefined ? deadline.signal : AbortSignal.any([clientSignal, deadline.signal])
  let timer: ReturnType<typeof setTimeout> | undefined
  const expired = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      deadline.abort()
      reject(new ToolError('deadline_exceeded', `the call did not finish within ${timeoutMs} ms`))
    }, timeoutMs)
  })
  try {
    return await Promise.race([run(signal), expired])
  } finally {
    clearTimeout(timer)
  }
}
