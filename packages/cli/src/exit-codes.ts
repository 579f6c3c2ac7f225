/**
 * The `acdp` command's exit codes and its one error type. Scripts rely on these numbers (docs/cli.md), so
 * they never change meaning; a new failure class gets a new number.
 */

/** Exit codes, documented in docs/cli.md "Exit codes". */
export const EXIT = {
  /** The command did what was asked (for `get --verify`: every check passed). */
  ok: 0,
  /** A server answered with an error, or a verification check failed. */
  failure: 1,
  /** The command line was wrong: unknown command or flag, missing argument, unreadable or invalid input file. */
  usage: 2,
  /** A server could not be reached (connection refused, DNS, timeout), or a port `acdp dev` needs is in use. */
  unreachable: 3,
  /**
   * The launcher (`bin/acdp.js`) refused the running Node.js: older than 24. Set before any of this code loads;
   * the `acdp-registry` and `acdp-control-plane` launchers use the same number.
   */
  wrongNode: 4,
  /** Interrupted by SIGINT (Ctrl-C) before the command finished; `dev` and `watch` exit 0 on Ctrl-C instead. */
  interrupted: 130,
} as const

/** One of the documented {@link EXIT} codes. */
export type ExitCode = (typeof EXIT)[keyof typeof EXIT]

/**
 * A failure the CLI reports as one line on stderr and turns into an exit code. `code` is the server's error
 * code when a server produced the failure (`not_found`, `RUN_NOT_FOUND`), else a CLI code (`usage`,
 * `unreachable`, `verification_failed`, `port_in_use`).
 */
export class CliError extends Error {
  override readonly name = 'CliError'
  /** The service's own field-level explanation (registry `details.errors`), printed under the one-line error. */
  readonly fieldErrors: readonly FieldError[]
  /** The HTTP status of the answer that produced the failure, when a server answered. */
  readonly httpStatus: number | undefined

  constructor(
    readonly exitCode: ExitCode,
    readonly code: string,
    message: string,
    options: { cause?: unknown; fieldErrors?: readonly FieldError[]; httpStatus?: number } = {},
  ) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause })
    this.fieldErrors = options.fieldErrors ?? []
    this.httpStatus = options.httpStatus
  }
}

/** One offending member of a refused request: its JSON pointer and the rule it broke. */
export interface FieldError {
  path: string
  message: string
}

/** Shorthand for a command-line mistake (exit 2). */
export function usageError(message: string): CliError {
  return new CliError(EXIT.usage, 'usage', message)
}
