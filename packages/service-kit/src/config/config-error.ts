/**
 * A configuration a server refuses to start with. Each entry of `problems` is one line naming the key or variable
 * and the way out; a launcher prints `message` and exits.
 *
 * A server that stops at its first refusal throws one line, and that line is the whole message. A server that
 * reports every refusal of one run throws the list, and the message is the list under one heading, one line each.
 */
export class ConfigError extends Error {
  override readonly name = 'ConfigError'
  readonly problems: readonly string[]

  constructor(refusal: string | readonly string[]) {
    super(typeof refusal === 'string' ? refusal : `invalid configuration:\n  - ${refusal.join('\n  - ')}`)
    this.problems = typeof refusal === 'string' ? [refusal] : [...refusal]
  }
}
