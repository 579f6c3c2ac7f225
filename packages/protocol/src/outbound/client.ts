/**
 * The one outbound HTTP client of the product (ARCHITECTURE "Outbound HTTP policy"; RFC-ACDP-0006 §7,
 * RFC-ACDP-0008 §4.8–4.9). DID documents, federation, webhook delivery, revocation feeds, JWKS and witness
 * polling all go through it: HTTPS only, every resolved address checked and pinned for the connection, redirects
 * followed by hand within the same authority, body cap while streaming, connect and total deadlines.
 */
import { X509Certificate } from 'node:crypto'
import { lookup as lookupDns } from 'node:dns/promises'
import { createSecureContext, getCACertificates, type SecureContext } from 'node:tls'
import type { buildConnector, Pool } from 'undici'
import { ProtocolError } from '../errors.js'
import { parseAllowCidrs } from './allow-cidrs.js'
import {
  type Destination,
  type DestinationPolicy,
  type OutboundLookup,
  parseOutboundUrl,
  resolveDestination,
} from './destination.js'
import { createPinnedConnector } from './pinned-connector.js'
import { isRedirectStatus, type OutboundMethod, planRedirect, type RedirectHop } from './redirect.js'
import { readBodyWithCap } from './response-body.js'
import { type AbortState, toOutboundFailure } from './transport-error.js'

/**
 * How a client may reach the network. Construct one per process from config; it is immutable afterwards.
 * Production leaves `allowCidrs` empty (services refuse a non-empty list when NODE_ENV=production).
 */
export interface OutboundPolicy {
  /** Operator allowlist, empty by default; the ONLY way to reach loopback/private addresses (tests, dev). */
  allowCidrs: string[]
  /** Plain http:// allowed only when every resolved address is inside `allowCidrs` (dev stack). Default false. */
  allowHttpForAllowlisted?: boolean
  /** Extra PEM roots trusted in addition to Node's default roots (tests, dev CA). */
  trustedCaCertificates?: string[]
  /** Redirects followed per request (same authority only). Default 3 (RFC-ACDP-0006 §7.5 maximum). */
  maxRedirects?: number
  /** Response body cap in bytes. Default 1 MiB (RFC-ACDP-0006 §7.3). */
  maxBodyBytes?: number
  /** TCP connect + TLS handshake deadline per address. Default 3000 (RFC-ACDP-0006 §7.4: at most 5 s). */
  connectTimeoutMs?: number
  /** Whole-request deadline: DNS, connect, redirects, headers and body. Default 10000 (§7.4: at most 30 s). */
  totalTimeoutMs?: number
  /** Sent as User-Agent unless a request sets its own. Default `acdp-outbound`. */
  userAgent?: string
  /**
   * Connection pools kept for keep-alive reuse, one per origin and checked address set (least recently used closed
   * beyond it). Default 64. A caller that talks to many origins again and again (a log witness polling every
   * enrolled registry) sizes it to that set, so each origin keeps its idle connection between requests instead of
   * a new TCP and TLS handshake each time.
   */
  maxPools?: number
  /** Injectable DNS (tests). Default: `dns.promises.lookup(hostname, { all: true, order: 'verbatim' })`. */
  lookup?: OutboundLookup
}

/** One request. Per-request limits override the policy's. */
export interface OutboundRequest {
  method?: OutboundMethod
  /** Caller headers. `host`, `content-length` and hop-by-hop headers are refused (TypeError). */
  headers?: Record<string, string>
  body?: Uint8Array | string
  maxBodyBytes?: number
  totalTimeoutMs?: number
  connectTimeoutMs?: number
  maxRedirects?: number
  signal?: AbortSignal
}

/** A response of any status: non-2xx is not an error here, callers decide. */
export interface OutboundResponse {
  status: number
  /** Lowercase names; repeated headers joined with ", ". */
  headers: Record<string, string>
  body: Uint8Array
  /** The final URL after same-authority redirects. */
  url: string
}

/** The policy-enforcing client. Safe to use concurrently; `close()` waits for in-flight requests. */
export interface OutboundClient {
  /**
   * Sends one request and reads the whole (capped) body.
   *
   * @throws ProtocolError `outbound_refused` (policy: scheme, address class, mixed DNS answer, credentials in the
   *   URL, cross-authority redirect, too many redirects), `outbound_too_large` (body over the cap),
   *   `outbound_failed` (DNS, connect, TLS, deadline, caller abort, closed client).
   * @throws TypeError on caller misuse (bad limits, forbidden header).
   */
  request(url: string | URL, init?: OutboundRequest): Promise<OutboundResponse>
  /**
   * Resolves and checks a URL against the policy without connecting (config-time webhook URL checks).
   * A later request still re-resolves and re-checks: this is not a pin.
   *
   * @throws ProtocolError `outbound_refused` or `outbound_failed` (reason `dns`, `total_timeout`).
   */
  checkUrl(url: string | URL): Promise<void>
  /** Closes pooled connections after in-flight requests finish; later requests fail with `client_closed`. */
  close(): Promise<void>
}

/** Defaults applied when the policy leaves a field out. */
export const OUTBOUND_DEFAULTS = {
  maxRedirects: 3,
  maxBodyBytes: 1024 * 1024,
  maxPools: 64,
  connectTimeoutMs: 3000,
  totalTimeoutMs: 10_000,
  userAgent: 'acdp-outbound',
} as const

const CONNECTIONS_PER_POOL = 16
/** TLS sessions kept for resumption, one per server name (a witness polls up to thousands of registries). */
const MAX_CACHED_TLS_SESSIONS = 4096
/** Redirect response bodies are drained up to this size (for keep-alive), else the socket is dropped. */
const REDIRECT_DRAIN_BYTES = 64 * 1024
const FORBIDDEN_REQUEST_HEADERS = new Set([
  'host',
  'content-length',
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'upgrade',
  'expect',
])

interface Limits {
  maxRedirects: number
  maxBodyBytes: number
  connectTimeoutMs: number
  totalTimeoutMs: number
}

/**
 * Builds the client. Validates the whole policy up front so a bad config fails at startup.
 *
 * @throws TypeError on a malformed CIDR, PEM certificate or limit.
 */
type Undici = typeof import('undici')
let undiciLoading: Promise<Undici> | undefined
/**
 * undici (≈ 1.2 MB of module source, ≈ 1.7 MB of resident memory once loaded) is imported on the first outbound
 * request rather than at startup, so a service that has not called out yet (an idle one) does not carry it
 * (docs/performance/journal.md "Idle memory (RSS)"). Loaded once per process.
 */
function loadUndici(): Promise<Undici> {
  undiciLoading ??= import('undici')
  return undiciLoading
}

export function createOutboundClient(policy: OutboundPolicy): OutboundClient {
  if (policy === null || typeof policy !== 'object') throw new TypeError('createOutboundClient needs a policy object')
  const destinationPolicy: DestinationPolicy = {
    allowCidrs: parseAllowCidrs(policy.allowCidrs),
    allowHttpForAllowlisted: policy.allowHttpForAllowlisted === true,
    lookup: policy.lookup ?? lookupSystemDns,
  }
  const defaults = readLimits(policy, OUTBOUND_DEFAULTS)
  const userAgent = policy.userAgent ?? OUTBOUND_DEFAULTS.userAgent
  const maxPools = readInteger('maxPools', policy.maxPools, OUTBOUND_DEFAULTS.maxPools, 1)
  const ca = readTrustedCas(policy.trustedCaCertificates)
  // One TLS context for the client's lifetime: passing `ca` per connection would make Node parse the whole root
  // bundle again for every handshake (milliseconds of CPU and a fresh context each time).
  const secureContext: SecureContext | undefined = ca ? createSecureContext({ ca }) : undefined
  // Invariant: each pool only ever dials the addresses in its key; written by poolFor, emptied by close().
  const pools = new Map<string, Pool>()
  // One connector per connect deadline, shared by every pool: its TLS session cache (keyed by server name) then
  // outlives pool eviction, so a client talking to more origins than maxPools resumes sessions instead of doing
  // a full handshake (certificate chain verification included) for every new pool.
  const connectors = new Map<number, buildConnector.connector>()
  const connectorFor = (undici: Undici, connectTimeoutMs: number): buildConnector.connector => {
    let connector = connectors.get(connectTimeoutMs)
    if (connector === undefined) {
      connector = undici.buildConnector({
        timeout: connectTimeoutMs,
        allowH2: false,
        maxCachedSessions: MAX_CACHED_TLS_SESSIONS,
        ...(secureContext ? { secureContext } : {}),
      })
      connectors.set(connectTimeoutMs, connector)
    }
    return connector
  }
  let isClosed = false

  const poolFor = (undici: Undici, destination: Destination, connectTimeoutMs: number): Pool => {
    const origin = destination.url.origin
    const key = `${origin}|${destination.addresses.join(',')}|${connectTimeoutMs}`
    const existing = pools.get(key)
    if (existing !== undefined) {
      pools.delete(key) // re-insert: Map order is the eviction order
      pools.set(key, existing)
      return existing
    }
    const pool = new undici.Pool(origin, {
      connect: createPinnedConnector(
        connectorFor(undici, connectTimeoutMs),
        destination.addresses,
        destination.hostname,
      ),
      connections: CONNECTIONS_PER_POOL,
      allowH2: false,
    })
    pools.set(key, pool)
    if (pools.size > maxPools) {
      const [oldestKey, oldest] = pools.entries().next().value as [string, Pool]
      pools.delete(oldestKey)
      // close() lets in-flight requests finish; it only rejects if the pool is already closed, which cannot be.
      void oldest.close().catch(() => undefined)
    }
    return pool
  }

  const request = async (input: string | URL, init: OutboundRequest = {}): Promise<OutboundResponse> => {
    if (isClosed) throw closedError()
    const limits = readLimits(init, defaults)
    const timeoutSignal = AbortSignal.timeout(limits.totalTimeoutMs)
    const signal = init.signal === undefined ? timeoutSignal : AbortSignal.any([timeoutSignal, init.signal])
    const abortState = (): AbortState => ({
      isTotalTimeout: timeoutSignal.aborted,
      isCallerAbort: init.signal?.aborted === true,
    })
    let hop: RedirectHop = {
      url: parseOutboundUrl(input),
      method: readMethod(init.method),
      headers: readRequestHeaders(init.headers, userAgent),
      body: readRequestBody(init.body),
    }
    const host = hop.url.hostname
    const destination = await withDeadline(resolveDestination(hop.url, destinationPolicy), signal, abortState, host)
    const undici = await loadUndici()
    if (isClosed) throw closedError()
    const pool = poolFor(undici, destination, limits.connectTimeoutMs)

    for (let redirects = 0; ; redirects += 1) {
      try {
        const response = await pool.request({
          path: `${hop.url.pathname}${hop.url.search}`,
          method: hop.method,
          headers: hop.headers,
          body: hop.body ?? null,
          signal,
          headersTimeout: limits.totalTimeoutMs,
          bodyTimeout: limits.totalTimeoutMs,
        })
        const status = response.statusCode
        const headers = flattenHeaders(response.headers)
        const location = headers['location']
        if (isRedirectStatus(status) && location !== undefined) {
          await response.body.dump({ limit: REDIRECT_DRAIN_BYTES })
          if (redirects >= limits.maxRedirects) {
            throw new ProtocolError('outbound_refused', `more than ${limits.maxRedirects} redirects`, {
              details: { reason: 'too_many_redirects', status, host, limit: limits.maxRedirects },
            })
          }
          hop = planRedirect(hop, status, location)
          continue
        }
        let body: Uint8Array
        if (hop.method === 'HEAD') {
          await response.body.dump({ limit: 0 })
          body = new Uint8Array(0)
        } else {
          body = await readBodyWithCap(response.body, limits.maxBodyBytes, headers['content-length'])
        }
        await connectionReleased()
        return { status, headers, body, url: hop.url.href }
      } catch (error) {
        throw toOutboundFailure(error, abortState(), host)
      }
    }
  }

  const checkUrl = async (input: string | URL): Promise<void> => {
    const url = parseOutboundUrl(input)
    const signal = AbortSignal.timeout(defaults.totalTimeoutMs)
    const abortState = (): AbortState => ({ isTotalTimeout: signal.aborted, isCallerAbort: false })
    await withDeadline(resolveDestination(url, destinationPolicy), signal, abortState, url.hostname)
  }

  const close = async (): Promise<void> => {
    isClosed = true
    const closing = [...pools.values()].map((pool) => pool.close())
    pools.clear()
    await Promise.all(closing)
  }

  return { request, checkUrl, close }
}

/**
 * Resolves after undici has put the response's connection back into its pool. The body's end reaches the caller
 * before the pool counts the connection idle, so a request sent straight after (a witness asks for the checkpoint,
 * then at once for the consistency proof) would open a second connection to the same origin; one turn of the event
 * loop lets it reuse the first.
 */
function connectionReleased(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve))
}

async function lookupSystemDns(hostname: string): Promise<Array<{ address: string; family: 4 | 6 }>> {
  const answers = await lookupDns(hostname, { all: true, order: 'verbatim' })
  return answers.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }))
}

/** Runs a DNS step under the request's deadline; `dns.lookup` itself cannot be cancelled. */
async function withDeadline<T>(
  work: Promise<T>,
  signal: AbortSignal,
  abortState: () => AbortState,
  host: string,
): Promise<T> {
  if (signal.aborted) {
    work.catch(() => undefined) // the result no longer matters; keep its rejection from going unhandled
    throw toOutboundFailure(signal.reason, abortState(), host)
  }
  let onAbort: (() => void) | undefined
  const aborted = new Promise<never>((_resolve, reject) => {
    onAbort = () => reject(toOutboundFailure(signal.reason, abortState(), host))
    signal.addEventListener('abort', onAbort, { once: true })
  })
  try {
    return await Promise.race([work, aborted])
  } finally {
    if (onAbort !== undefined) signal.removeEventListener('abort', onAbort)
    work.catch(() => undefined)
  }
}

function readLimits(source: Partial<Limits>, fallback: Limits): Limits {
  return {
    maxRedirects: readInteger('maxRedirects', source.maxRedirects, fallback.maxRedirects, 0),
    maxBodyBytes: readInteger('maxBodyBytes', source.maxBodyBytes, fallback.maxBodyBytes, 0),
    connectTimeoutMs: readInteger('connectTimeoutMs', source.connectTimeoutMs, fallback.connectTimeoutMs, 1),
    totalTimeoutMs: readInteger('totalTimeoutMs', source.totalTimeoutMs, fallback.totalTimeoutMs, 1),
  }
}

function readInteger(name: string, value: number | undefined, fallback: number, minimum: number): number {
  if (value === undefined) return fallback
  if (!Number.isSafeInteger(value) || value < minimum) {
    throw new TypeError(`${name} must be an integer ≥ ${minimum}, got ${String(value)}`)
  }
  return value
}

function readTrustedCas(pems: string[] | undefined): string[] | undefined {
  if (pems === undefined || pems.length === 0) return undefined
  if (!Array.isArray(pems)) throw new TypeError('trustedCaCertificates must be an array of PEM strings')
  for (const pem of pems) {
    try {
      new X509Certificate(pem)
    } catch (cause) {
      throw new TypeError('trustedCaCertificates holds an entry that is not a PEM certificate', { cause })
    }
  }
  // Node's `ca` replaces the default roots, so the defaults are listed explicitly to add rather than replace.
  return [...getCACertificates('default'), ...pems]
}

function readMethod(method: OutboundMethod | undefined): OutboundMethod {
  if (method === undefined) return 'GET'
  if (method !== 'GET' && method !== 'POST' && method !== 'HEAD' && method !== 'PUT') {
    throw new TypeError(`unsupported outbound method ${String(method)}`)
  }
  return method
}

function readRequestHeaders(headers: Record<string, string> | undefined, userAgent: string): Record<string, string> {
  const result: Record<string, string> = {}
  let hasUserAgent = false
  for (const [name, value] of Object.entries(headers ?? {})) {
    const lower = name.toLowerCase()
    if (FORBIDDEN_REQUEST_HEADERS.has(lower) || lower.startsWith('proxy-')) {
      throw new TypeError(`outbound request header "${name}" is set by the client and may not be given`)
    }
    if (typeof value !== 'string') throw new TypeError(`outbound request header "${name}" must be a string`)
    if (lower === 'user-agent') hasUserAgent = true
    result[lower] = value
  }
  if (!hasUserAgent) result['user-agent'] = userAgent
  return result
}

function readRequestBody(body: Uint8Array | string | undefined): Uint8Array | string | undefined {
  if (body === undefined || typeof body === 'string' || body instanceof Uint8Array) return body
  throw new TypeError('outbound request body must be a string or Uint8Array')
}

function flattenHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string> {
  const result: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue
    result[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value
  }
  return result
}

function closedError(): ProtocolError {
  return new ProtocolError('outbound_failed', 'outbound client is closed', { details: { reason: 'client_closed' } })
}
