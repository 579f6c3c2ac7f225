/**
 * A fuzz seed: one valid request of one route, plus how to re-authenticate it after a mutation so that
 * mutated requests get past signature checks and reach the parsers and validators behind them.
 */

/** One valid request the fuzzer starts from. */
export interface FuzzSeed {
  /** The route it exercises, as `METHOD /pattern` in the service's own pattern syntax (route coverage check). */
  route: string
  method: string
  /** Path and query, already percent-encoded where needed. */
  path: string
  headers: Record<string, string>
  /** Status the unmutated seed answers when it is not a 2xx (a route whose success needs state the fuzz lacks). */
  expectStatus?: number
  /** JSON value sent as the body (absent: no body). */
  body?: unknown
  /**
   * Re-signs a structurally mutated body value (e.g. a publish request's content_hash and signature); returns the
   * value to send. Called only when the mutated value is still an object.
   */
  sealValue?: (value: Record<string, unknown>) => Record<string, unknown>
  /** Signs the final body bytes (e.g. webhook HMAC); returns headers to set. Applied after byte-level mutations. */
  sealBytes?: (body: Buffer) => Record<string, string>
}

/** A service under fuzz: where it listens, its seeds, and the routes it actually serves. */
export interface FuzzTarget {
  name: string
  port: number
  seeds: FuzzSeed[]
  /** Every route the app registered (`METHOD /pattern`), for the coverage check. */
  routes: string[]
  /** Checks the shape of an error answer in the service's envelope; returns a problem or undefined. */
  checkErrorEnvelope: (status: number, body: unknown) => string | undefined
  close(): Promise<void>
}
