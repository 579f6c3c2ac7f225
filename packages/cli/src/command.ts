/**
 * What every `acdp` sub-command is: a name, its help text, and a run function over parsed arguments and an
 * injected I/O surface (so tests run commands in-process with captured output and a fake or real fetch).
 */
import { type ParseArgsConfig, parseArgs } from 'node:util'
import type { OutboundClient } from '@acdp/protocol'
import type { ExitCode } from './exit-codes.js'
import { usageError } from './exit-codes.js'

/** The outside world a command may touch. `bin/acdp.ts` wires it to the process; tests wire it to buffers. */
export interface CliIo {
  /** Writes to standard output (results, `--json` documents). */
  stdout: (text: string) => void
  /** Writes to standard error (progress notes, the one-line error). */
  stderr: (text: string) => void
  /** Environment variables (read for ACDP_* defaults only). */
  env: Readonly<Record<string, string | undefined>>
  /** Directory relative paths are resolved against (`./data`, key files, body files). */
  cwd: string
  /** HTTP client; global `fetch` in production. */
  fetch: typeof globalThis.fetch
  /** Aborted on SIGINT/SIGTERM; long-running commands (`dev`, `watch`) stop gracefully when it fires. */
  signal: AbortSignal
  /**
   * The SSRF-safe client for did:web documents of producers and witnesses. Absent (production): a public-only
   * client is built per command. Tests inject one trusting a test CA with their own DNS; its owner closes it.
   */
  outbound?: OutboundClient
}

/** One sub-command. `help` is printed verbatim for `acdp <name> --help`. */
export interface Command {
  name: string
  summary: string
  help: string
  run: (args: string[], io: CliIo) => Promise<ExitCode>
}

type Options = NonNullable<ParseArgsConfig['options']>

/**
 * Parses a command's arguments with `node:util` parseArgs (strict: unknown flags are errors) and checks the
 * positional count. parseArgs' own errors become usage errors (exit 2) with its message.
 *
 * @throws CliError `usage` on an unknown flag, a missing flag value, or a wrong number of positionals.
 */
export function parseCommandArgs<const O extends Options>(
  commandName: string,
  args: string[],
  options: O,
  positionals: { min: number; max: number; names: string },
) {
  let parsed: ReturnType<typeof parseArgs<{ args: string[]; options: O; allowPositionals: true; strict: true }>>
  try {
    parsed = parseArgs({ args, options, allowPositionals: true, strict: true })
  } catch (error) {
    throw usageError(error instanceof Error ? error.message : String(error))
  }
  const count = parsed.positionals.length
  if (count < positionals.min || count > positionals.max) {
    const expected = positionals.names === '' ? 'no arguments' : positionals.names
    throw usageError(`expected ${expected} (see acdp ${commandName} --help)`)
  }
  return parsed
}

/** True when the caller asked for help anywhere before a `--` terminator. */
export function wantsHelp(args: readonly string[]): boolean {
  for (const arg of args) {
    if (arg === '--') return false
    if (arg === '--help' || arg === '-h') return true
  }
  return false
}
