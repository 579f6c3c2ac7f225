#!/usr/bin/env node
/**
 * `acdp-registry [--config registry.toml]`: the process wrapper around cli.ts. It also gives memory back when the
 * process turns idle after load (registry.memory_release_on_idle; docs/registry/memory.md): only the bin does, since
 * a registry embedded in another process (`acdp dev`, tests) shares its heap with that process.
 */
import { DEFAULT_IDLE_MEMORY_RELEASE, startIdleMemoryRelease } from '@acdp/service-kit'
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
})
  .then((running) => {
    if (running === undefined || !running.config.registry.memory_release_on_idle) return
    const release = startIdleMemoryRelease(DEFAULT_IDLE_MEMORY_RELEASE)
    void running.stopped.then(() => release.stop())
  })
  .catch((error: unknown) => {
    process.stderr.write(`acdp-registry: fatal: ${(error as Error)?.stack ?? String(error)}\n`)
    process.exit(1)
  })
