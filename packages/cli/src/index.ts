/**
 * @acdp/cli — the `acdp` command as a library: tests and embedders run commands in-process with their own I/O
 * and start the wired dev stack directly.
 */
export { COMMANDS, runCli, toCliError } from './cli.js'
export type { CliIo, Command } from './command.js'
export { type DevSecrets, loadOrCreateDevSecrets } from './dev/dev-secrets.js'
export {
  DEV_ALLOW_CIDRS,
  DEV_REGISTRY_AUTHORITY,
  type DevStackOptions,
  type RunningDevStack,
  startDevStack,
} from './dev/dev-stack.js'
export { findFreePort } from './dev/port-probe.js'
export { CliError, EXIT, type ExitCode } from './exit-codes.js'
export { readSseFrames, type SseFrame } from './http/sse-frames.js'
export { type LineageGraph, renderLineageGraph } from './render/lineage-text.js'
