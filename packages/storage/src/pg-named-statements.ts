/**
 * Named (prepared) statements on PostgreSQL for the texts a service marks hot.
 *
 * The driver sends every other statement unnamed: PostgreSQL parses, analyses and plans it on every execution.
 * A named statement is parsed once per connection and then only bound and executed (its plan cached by the
 * server's plan cache), which is most of a short statement's server CPU. Kysely calls `client.query(text,
 * values)` and has no way to name a statement, so the pool's clients are wrapped once, when they connect: a text
 * registered here goes out under its name, everything else unchanged.
 *
 * The set only grows, and a service registers a bounded number of fixed texts (never one per row count or per
 * value), so every connection prepares at most that many statements.
 */
import type pg from 'pg'

/** The statement names of one pool, by text. */
export class PgNamedStatements {
  readonly #names = new Map<string, string>()

  /** Marks `text` hot: from the next execution on, each connection prepares it once and reuses it. */
  add(text: string): void {
    if (!this.#names.has(text)) this.#names.set(text, `acdp_${this.#names.size + 1}`)
  }

  /** The name `text` is prepared under, or undefined for a text that is sent unnamed. */
  nameOf(text: string): string | undefined {
    return this.#names.get(text)
  }

  /** Wraps a newly connected client's `query` so that registered texts with values go out named. */
  attach(client: pg.PoolClient): void {
    const query = client.query.bind(client) as (...args: unknown[]) => unknown
    const names = this.#names
    client.query = function (this: unknown, ...args: unknown[]) {
      const [text, values] = args
      if (typeof text === 'string' && Array.isArray(values) && args.length === 2) {
        const name = names.get(text)
        if (name !== undefined) return query({ name, text, values })
      }
      return query(...args)
    } as typeof client.query
  }
}

/**
 * The startup `options` string for server settings (`-c name=value` each): applied by the server to the session
 * before the first statement, so no extra round trip and no connection without them. Names and values are
 * checked: a space or backslash would need escaping there, and no setting we use has one.
 */
export function startupOptions(settings: Readonly<Record<string, string>>): string | undefined {
  const parts: string[] = []
  for (const [name, value] of Object.entries(settings)) {
    if (!/^[a-z_][a-z0-9_.]*$/.test(name)) throw new TypeError(`invalid PostgreSQL setting name: ${name}`)
    if (!/^[A-Za-z0-9_.,:+-]+$/.test(value)) throw new TypeError(`invalid value for PostgreSQL setting ${name}`)
    parts.push(`-c ${name}=${value}`)
  }
  return parts.length === 0 ? undefined : parts.join(' ')
}
