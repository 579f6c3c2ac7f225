/**
 * The `acdp` command: dispatches to a sub-command, prints help, and turns every failure into one line on
 * stderr plus a documented exit code (docs/cli.md "Exit codes").
 */
import { readFileSync } from 'node:fs'
import { isProtocolError } from '@acdp/protocol'
import { type CliIo, type Command, wantsHelp } from './command.js'
import { demoCommand } from './commands/demo.js'
import { devCommand } from './commands/dev.js'
import { getCommand } from './commands/get.js'
import { keygenCommand } from './commands/keygen.js'
import { logCommand } from './commands/log-audit.js'
import { mcpCommand } from './commands/mcp.js'
import { publishCommand } from './commands/publish.js'
import { registriesCommand } from './commands/registries.js'
import { runCommand } from './commands/run.js'
import { runsCommand } from './commands/runs.js'
import { traceCommand } from './commands/trace.js'
import { watchCommand } from './commands/watch.js'
import { CliError, EXIT, type ExitCode } from './exit-codes.js'
import { readFieldErrors } from './http/field-errors.js'
import { findWrongService } from './http/wrong-service.js'

/** Every sub-command, in help order. */
export const COMMANDS: readonly Command[] = [
  devCommand,
  demoCommand,
  keygenCommand,
  publishCommand,
  getCommand,
  traceCommand,
  logCommand,
  runsCommand,
  runCommand,
  watchCommand,
  registriesCommand,
  mcpCommand,
]

function renderMainHelp(): string {
  const width = Math.max(...COMMANDS.map((command) => command.name.length))
  return `Usage: acdp <command> [options]

Agent Context Distribution Protocol: run a local registry and control plane, publish signed contexts,
verify them, and follow runs.

Commands:
${COMMANDS.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`).join('\n')}

Run "acdp <command> --help" for a command's options. Every read command takes --json.

Exit codes: 0 ok; 1 server error or failed verification; 2 usage error; 3 server unreachable or port in use;
130 interrupted.
`
}

/** The CLI's version (this package's). */
export function readCliVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: unknown }
    return typeof pkg.version === 'string' ? pkg.version : 'unknown'
  } catch {
    return 'unknown'
  }
}

/**
 * Runs one command line (without the program name) and returns the exit code. Never throws: a failure is
 * reported as `acdp: <code>: <message>` on stderr.
 */
export async function runCli(argv: readonly string[], io: CliIo): Promise<ExitCode> {
  const [name, ...rest] = argv
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    const topic = name === 'help' ? COMMANDS.find((command) => command.name === rest[0]) : undefined
    io.stdout(topic === undefined ? renderMainHelp() : `${topic.help}\n`)
    return name === undefined ? EXIT.usage : EXIT.ok
  }
  if (name === '--version' || name === '-v') {
    io.stdout(`${readCliVersion()}\n`)
    return EXIT.ok
  }
  const command = COMMANDS.find((candidate) => candidate.name === name)
  if (command === undefined) {
    io.stderr(`acdp: usage: unknown command "${name}" (run acdp --help)\n`)
    return EXIT.usage
  }
  if (wantsHelp(rest)) {
    io.stdout(`${command.help}\n`)
    return EXIT.ok
  }
  try {
    return await command.run([...rest], io)
  } catch (error) {
    const failure = toCliError(error, io)
    if (asksForJson(rest)) io.stdout(`${JSON.stringify(errorDocument(failure), null, 2)}\n`)
    else {
      const fields = failure.fieldErrors.map((field) => `  ${field.path}: ${field.message}\n`).join('')
      io.stderr(`acdp ${command.name}: ${failure.code}: ${failure.message}\n${fields}`)
    }
    return failure.exitCode
  }
}

/** True when `--json` was given (before any `--`): a script reading stdout then gets the error as JSON too. */
function asksForJson(args: readonly string[]): boolean {
  for (const arg of args) {
    if (arg === '--') return false
    if (arg === '--json') return true
  }
  return false
}

/** The `--json` form of a failure: `{ "error": { code, message, exit_code, http_status?, errors? } }`. */
export function errorDocument(failure: CliError): { error: Record<string, unknown> } {
  return {
    error: {
      code: failure.code,
      message: failure.message,
      exit_code: failure.exitCode,
      ...(failure.httpStatus === undefined ? {} : { http_status: failure.httpStatus }),
      ...(failure.fieldErrors.length === 0 ? {} : { errors: failure.fieldErrors }),
    },
  }
}

/** Maps any thrown value to the one-line error and exit code. Unexpected errors keep their class name. */
export function toCliError(error: unknown, io: Pick<CliIo, 'signal'>): CliError {
  // A control plane answering a registry call explains every failure after it (guardRegistryCalls), however wrapped.
  const wrongService = findWrongService(error)
  if (wrongService !== undefined) return wrongService
  if (error instanceof CliError) return error
  if (io.signal.aborted) return new CliError(EXIT.interrupted, 'interrupted', 'stopped before finishing')
  if (isProtocolError(error)) {
    if (error.code === 'request_rejected') {
      const details = error.details ?? {}
      const code = typeof details['code'] === 'string' ? details['code'] : 'request_rejected'
      const message = error.message.startsWith(`${code}: `) ? error.message.slice(code.length + 2) : error.message
      const status = typeof details['status'] === 'number' ? details['status'] : undefined
      return new CliError(EXIT.failure, code, `${message} (HTTP ${String(details['status'])})`, {
        cause: error,
        fieldErrors: readFieldErrors(details['details']),
        ...(status === undefined ? {} : { httpStatus: status }),
      })
    }
    if (error.code === 'outbound_failed')
      return new CliError(EXIT.unreachable, 'unreachable', error.message, { cause: error })
    return new CliError(EXIT.failure, error.code, error.message, { cause: error })
  }
  const message = error instanceof Error ? `${error.name}: ${error.message}` : String(error)
  return new CliError(EXIT.failure, 'internal_error', message, { cause: error })
}
