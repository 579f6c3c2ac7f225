/**
 * A captured CliIo for in-process command tests: output goes to strings, the environment and working directory
 * are the test's, and fetch is whatever the test passes (real sockets in the end-to-end suites).
 */
import type { OutboundClient } from '@acdp/protocol'
import type { CliIo } from './command.js'

/** A CliIo whose output the test reads back, with a way to simulate Ctrl-C. */
export interface CapturedIo extends CliIo {
  out: () => string
  err: () => string
  interrupt: () => void
}

/** Builds a {@link CapturedIo} for in-process command tests. */
export function captureIo(options: {
  cwd: string
  env?: Record<string, string>
  fetch?: typeof globalThis.fetch
  outbound?: OutboundClient
}): CapturedIo {
  let out = ''
  let err = ''
  const controller = new AbortController()
  return {
    stdout: (text) => {
      out += text
    },
    stderr: (text) => {
      err += text
    },
    env: options.env ?? {},
    cwd: options.cwd,
    fetch: options.fetch ?? globalThis.fetch,
    signal: controller.signal,
    ...(options.outbound === undefined ? {} : { outbound: options.outbound }),
    out: () => out,
    err: () => err,
    interrupt: () => controller.abort(new Error('interrupted by test')),
  }
}
