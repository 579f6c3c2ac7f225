/**
 * Bounds on how long a client may take to send a request, so slow senders (slowloris headers, bodies trickled
 * over minutes) cannot hold connections: Node answers 408 and closes when the headers or the whole request are
 * late. Responses are not bounded here (event streams are long by design).
 */
import type { Server } from 'node:http'

/** How often Node checks for late requests; at most this much past its deadline a slow request is closed. */
const CHECK_INTERVAL_MS = 1000

export function applyRequestTimeouts(
  server: Server,
  limits: { headersTimeoutMs: number; requestTimeoutMs: number },
): void {
  server.requestTimeout = limits.requestTimeoutMs
  server.headersTimeout = limits.headersTimeoutMs
  // Read when the server starts listening; Node's default (30 s) would let a 10 s deadline slip to 40 s.
  ;(server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval = Math.min(
    CHECK_INTERVAL_MS,
    limits.headersTimeoutMs,
  )
}
