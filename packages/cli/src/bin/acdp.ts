#!/usr/bin/env node
/**
 * The `acdp` executable: wires the CLI to the process (stdout, stderr, environment, global fetch, SIGINT and
 * SIGTERM) and exits with the command's code.
 */
import { runCli } from '../cli.js'

const interrupt = new AbortController()
let signals = 0
const onSignal = (signal: NodeJS.Signals) => {
  signals++
  // A second Ctrl-C while a graceful stop is under way means "now".
  if (signals > 1) process.exit(signal === 'SIGINT' ? 130 : 143)
  interrupt.abort(new Error(`received ${signal}`))
}
process.on('SIGINT', onSignal)
process.on('SIGTERM', onSignal)

const exitCode = await runCli(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env: process.env,
  cwd: process.cwd(),
  fetch: globalThis.fetch,
  signal: interrupt.signal,
})
process.exitCode = exitCode
// Long-lived handles (keep-alive sockets, timers of embedded services) must not keep a finished command alive.
setTimeout(() => process.exit(exitCode), 2000).unref()
