/**
 * The log lines of `acdp dev`: a pino-compatible logger (the Fastify base-logger surface both services accept as
 * `deps.logger`) that writes one readable line per record, prefixed with the service name, so the registry's
 * and the control plane's output interleave legibly in one terminal:
 *
 *   [registry]      12:00:01.234 INFO  POST /contexts → 201 (4.1 ms)
 *   [control-plane] 12:00:01.240 INFO  POST /ingest/acdp → 204 (2.0 ms)
 *
 * Fastify's "incoming request" records are dropped (the completion line says everything), and the registry's
 * one-line access record renders the same way (its error code as `code=`); errors keep their
 * stack, indented under the line.
 */
import { format } from 'node:util'
import type { ControlPlaneDeps } from '@acdp/control-plane'

/** The logger both services accept as `deps.logger` (Fastify's base logger surface). */
export type ServiceLogger = NonNullable<ControlPlaneDeps['logger']>

const LEVELS = { trace: 10, debug: 20, info: 30, warn: 40, error: 50, fatal: 60 } as const
type LevelName = keyof typeof LEVELS

/** Members never worth a terminal column in development. */
const HIDDEN = new Set(['reqId', 'req', 'res', 'responseTime', 'err', 'error', 'pid', 'hostname', 'msg'])
const ACCESS_HIDDEN = new Set([...HIDDEN, 'method', 'url', 'status', 'ms'])

/** Options of {@link createDevLogger}. */
export interface DevLoggerOptions {
  /** Service name shown in the prefix, e.g. `registry`. */
  name: string
  /** Prefix width, so several services' lines align. */
  prefixWidth: number
  /** Receives each finished line (with its newline). */
  write: (line: string) => void
  /** Minimum level; default `info`. `silent` drops everything. */
  level?: string
  /** ANSI colour for the prefix (e.g. 36 = cyan); omit for none. */
  color?: number
  /** Clock for the timestamp column. */
  clock?: () => Date
}

/** Creates the logger. Safe to share; children inherit the level and merge their bindings. */
export function createDevLogger(options: DevLoggerOptions): ServiceLogger {
  const clock = options.clock ?? (() => new Date())
  const label = `[${options.name}]`.padEnd(options.prefixWidth + 2)
  const prefix = options.color === undefined ? label : `\u001b[${options.color}m${label}\u001b[0m`
  return buildLogger(options.level ?? 'info', {}, (level, bindings, args) => {
    const line = formatRecord(level, bindings, args)
    if (line !== undefined) options.write(`${prefix} ${formatTime(clock())} ${line}\n`)
  })
}

type Sink = (level: LevelName, bindings: Record<string, unknown>, args: unknown[]) => void

function buildLogger(initialLevel: string, bindings: Record<string, unknown>, sink: Sink): ServiceLogger {
  let level = initialLevel
  const threshold = () => (level === 'silent' ? Number.POSITIVE_INFINITY : (LEVELS[level as LevelName] ?? LEVELS.info))
  const method =
    (name: LevelName) =>
    (...args: unknown[]) => {
      if (LEVELS[name] >= threshold()) sink(name, bindings, args)
    }
  const logger = {
    get level() {
      return level
    },
    set level(next: string) {
      level = next
    },
    trace: method('trace'),
    debug: method('debug'),
    info: method('info'),
    warn: method('warn'),
    error: method('error'),
    fatal: method('fatal'),
    silent: () => {},
    child(childBindings: Record<string, unknown>, childOptions?: { level?: string }) {
      return buildLogger(childOptions?.level ?? level, { ...bindings, ...childBindings }, sink)
    },
  }
  return logger as unknown as ServiceLogger
}

/** Renders one record, or undefined to drop it. Accepts pino's call shapes: (msg, ...args), (obj, msg?, ...args), (err, msg?). */
export function formatRecord(level: LevelName, bindings: Record<string, unknown>, args: unknown[]): string | undefined {
  const [first, ...rest] = args
  let fields: Record<string, unknown> = { ...bindings }
  let message: string
  if (typeof first === 'string' || first === undefined) {
    message = format(first ?? '', ...rest)
  } else if (first instanceof Error) {
    fields.err = first
    message = rest.length > 0 ? format(...(rest as [unknown, ...unknown[]])) : first.message
  } else {
    fields = { ...fields, ...(first as Record<string, unknown>) }
    message = rest.length > 0 ? format(...(rest as [unknown, ...unknown[]])) : String(fields['msg'] ?? '')
  }
  if (message === 'incoming request') return undefined
  const request = describeRequest(fields)
  if (message === 'request completed' && request !== undefined) message = request
  const access = message === 'request' ? describeAccessLine(fields) : undefined
  if (access !== undefined) message = access
  const hidden = access === undefined ? HIDDEN : ACCESS_HIDDEN
  const extras = Object.entries(fields)
    .filter(([key, value]) => !hidden.has(key) && value !== undefined && (typeof value !== 'object' || value === null))
    .map(([key, value]) => `${key}=${String(value)}`)
  const error = fields['err'] ?? fields['error']
  const errorText =
    error instanceof Error
      ? `${error.message === message ? '' : `: ${error.message}`}${LEVELS[level] >= LEVELS.error && error.stack ? `\n${indent(error.stack)}` : ''}`
      : ''
  return `${level.toUpperCase().padEnd(5)} ${message}${extras.length > 0 ? `  ${extras.join(' ')}` : ''}${errorText}`
}

// Fastify logs `{ res: reply, responseTime }` on completion; the reply knows its request.
function describeRequest(fields: Record<string, unknown>): string | undefined {
  const reply = fields['res'] as { statusCode?: unknown; request?: { method?: unknown; url?: unknown } } | undefined
  if (reply === undefined || typeof reply !== 'object' || reply === null) return undefined
  const method = typeof reply.request?.method === 'string' ? reply.request.method : '?'
  const url = typeof reply.request?.url === 'string' ? reply.request.url : '?'
  const time = typeof fields['responseTime'] === 'number' ? ` (${fields['responseTime'].toFixed(1)} ms)` : ''
  return `${method} ${url} → ${String(reply.statusCode)}${time}`
}

// The registry's own access line (its access-log.ts): `{ method, url, status, ms, code? }`, message `request`.
function describeAccessLine(fields: Record<string, unknown>): string | undefined {
  const { method, url, status, ms } = fields
  if (typeof method !== 'string' || typeof url !== 'string' || typeof status !== 'number') return undefined
  return `${method} ${url} → ${status}${typeof ms === 'number' ? ` (${ms.toFixed(1)} ms)` : ''}`
}

function formatTime(date: Date): string {
  return date.toISOString().slice(11, 23)
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `      ${line}`)
    .join('\n')
}
