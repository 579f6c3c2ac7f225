#!/usr/bin/env node
/** `acdp-registry [--config registry.toml]`: the process wrapper around cli.ts. */
import { runRegistryCli } from './cli.js'

runRegistryCli(process.argv.slice(2), {
  env: process.env,
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  exit: (code) => process.exit(code),
  onStopSignal: (handler) => {
    process.on('SIGINT', () => handler('SIGINT'))
    process.on('SIGTERM', () => handler('SIGTERM'))
  },
}).catch((error: unknown) => {
  process.stderr.write(`acdp-registry: fatal: ${(error as Error)?.stack ?? String(error)}\n`)
  process.exit(1)
})
