/**
 * Drop-in compatibility: every route of both services, called over real loopback sockets the way generic JSON
 * clients (the reference web console's fetch helper among them) call them — `Content-Type: application/json` on
 * bodiless requests, a `charset` parameter, `application/acdp+json`, `Accept: application/json` and `*∕*`, `HEAD`
 * and `OPTIONS`. The route list is each app's own route table (recorded as the routes are registered), so a new
 * route is exercised without editing this file, and the suite asserts it covered the whole table.
 *
 * What is asserted for each route: no 5xx; a JSON content type on a bodiless request (with or without charset,
 * either JSON media type) gets exactly the answer of the same request without one; `Accept: *∕*` the answer of
 * `Accept: application/json`; `HEAD` the status and content type of `GET` with no body; `OPTIONS` (no CORS
 * configured) 404 in the envelope (registry api.md "CORS"); every error in the service's envelope and media type;
 * a non-empty body where the route takes none is 400 in the envelope.
 */
import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { bodyContractOf } from '@acdp/service-kit'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { type RunningDevStack, startDevStack } from '../../packages/cli/src/dev/dev-stack.js'
import { recordRoutes, type RouteEntry, routeTable } from './route-table.js'

vi.mock('fastify', async (importOriginal) => {
  const real = await importOriginal<typeof import('fastify')>()
  const recording = ((options: unknown) => {
    const app = (real.default as (options: unknown) => FastifyInstance)(options)
    recordRoutes(app)
    return app
  }) as unknown as typeof real.default
  return { ...real, default: recording, fastify: recording }
})

interface Answer {
  status: number
  type: string
  text: string
}

interface Service {
  name: 'registry' | 'control plane'
  base: string
  routes: RouteEntry[]
  auth: Record<string, string>
  /** The service's error envelope, checked on every 4xx. */
  isEnvelope(answer: Answer): boolean
}

const WAIT_MS = 5_000
let stack: RunningDevStack
let dataDir: string
let services: Service[]
const exercised = new Set<string>()

/**
 * A concrete URL for a route pattern: unknown ids of the dev registry's own authority (a foreign one would be
 * resolved remotely), so every call is repeatable and changes nothing.
 */
function concrete(url: string): string {
  const authority = encodeURIComponent(new URL(stack.registryUrl).host)
  return url
    .replace(/:(id|deliveryId)\b/g, randomUUID())
    .replace(/:authority\b/g, 'unknown-registry.example')
    .replace(/:runId\b/g, 'no-such-run')
    .replace(/:lineage_id\b/g, 'lin:sha256:' + '0'.repeat(64))
    .replace(/\*$/, `acdp%3A%2F%2F${authority}%2F00000000-0000-4000-8000-000000000000`)
}

async function call(
  service: Service,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<Answer> {
  const response = await fetch(`${service.base}${path}`, {
    method,
    headers: { ...service.auth, ...headers },
    ...(body === undefined ? {} : { body }),
    signal: AbortSignal.timeout(WAIT_MS),
  })
  const type = response.headers.get('content-type') ?? ''
  // Streams never end on their own: their headers are the answer.
  if (type.startsWith('text/event-stream')) {
    await response.body?.cancel()
    return { status: response.status, type, text: '' }
  }
  return { status: response.status, type, text: await response.text() }
}

/** Status and media type of an answer, with the error body when there is one (ids and times vary otherwise). */
function shape(answer: Answer): unknown {
  return [answer.status, answer.type, answer.status >= 400 ? answer.text : '']
}

function jsonOf(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text)
    return typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined
  } catch {
    return undefined
  }
}

/** No server error: only 501 (a feature this instance does not offer, documented per route) is allowed. */
function expectSound(service: Service, label: string, answer: Answer): void {
  expect(answer.status === 501 || answer.status < 500, `${service.name} ${label}: ${answer.status}`).toBe(true)
  if (answer.status >= 400) expect(service.isEnvelope(answer), `${service.name} ${label}: ${answer.text}`).toBe(true)
}

const JSON_TYPES = ['application/json', 'application/json; charset=utf-8', 'application/acdp+json; charset=UTF-8']

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'acdp-compat-'))
  stack = await startDevStack({
    dataDir,
    host: '127.0.0.1',
    registryPort: 0,
    controlPlanePort: 0,
    logLevel: 'warn',
    writeLog: () => {},
    // The dev stack runs receipts, the log and the witness by default, so their routes are in the table.
  })
  services = [
    {
      name: 'registry',
      base: stack.registryUrl,
      routes: routeTable(stack.registry.app, bodyContractOf),
      auth: { authorization: `Bearer ${stack.secrets.registry_admin_token}` },
      isEnvelope: (answer) => {
        const error = jsonOf(answer.text)?.['error'] as Record<string, unknown> | undefined
        return (
          answer.type === 'application/acdp+json' &&
          typeof error?.['code'] === 'string' &&
          typeof error['message'] === 'string'
        )
      },
    },
    {
      name: 'control plane',
      base: stack.controlPlaneUrl,
      routes: routeTable(stack.controlPlane.app, bodyContractOf),
      auth: { authorization: `Bearer ${stack.secrets.control_plane_api_key}` },
      isEnvelope: (answer) => {
        const body = jsonOf(answer.text)
        return (
          answer.type.startsWith('application/json') &&
          body?.['statusCode'] === answer.status &&
          typeof body['errorCode'] === 'string' &&
          typeof body['message'] === 'string'
        )
      },
    },
  ]
}, 60_000)

afterAll(async () => {
  await stack?.close()
  if (dataDir) rmSync(dataDir, { recursive: true, force: true })
})

describe('generic JSON clients against every route', () => {
  it('read the route tables of both services', () => {
    const table = (name: string) => services.find((s) => s.name === name)?.routes.map((r) => `${r.method} ${r.url}`)
    // Known routes of each, so an empty or partial recording cannot pass as coverage.
    expect(table('registry')).toEqual(
      expect.arrayContaining(['GET /.well-known/jwks.json', 'POST /contexts', 'GET /contexts/*', 'POST /contexts/*']),
    )
    expect(table('control plane')).toEqual(
      expect.arrayContaining(['DELETE /webhooks/:id', 'POST /ingest/acdp', 'GET /runs/:runId/lineage']),
    )
  })

  it('a JSON content type on a bodiless request changes nothing; a body there is refused', async () => {
    for (const service of services) {
      for (const route of service.routes.filter((r) => r.method !== 'GET' && r.method !== 'HEAD')) {
        if (route.body === 'required') continue
        const path = concrete(route.url)
        const plain = await call(service, route.method, path)
        expectSound(service, `${route.method} ${route.url}`, plain)
        for (const type of JSON_TYPES) {
          const typed = await call(service, route.method, path, { 'content-type': type })
          expect([route.method, route.url, type, shape(typed)]).toEqual([route.method, route.url, type, shape(plain)])
        }
        if (route.body === 'none') {
          const refused = await call(service, route.method, path, { 'content-type': 'application/json' }, '{}')
          expect([route.method, route.url, refused.status]).toEqual([route.method, route.url, 400])
          expectSound(service, `${route.method} ${route.url} with a body`, refused)
        }
        exercised.add(`${service.name} ${route.method} ${route.url}`)
      }
    }
  })

  it('a required body: JSON with or without charset gets one answer; an empty one is refused in the envelope', async () => {
    for (const service of services) {
      for (const route of service.routes.filter((r) => r.body === 'required')) {
        const path = concrete(route.url)
        const answers = []
        for (const type of JSON_TYPES.slice(0, 2)) {
          answers.push(shape(await call(service, route.method, path, { 'content-type': type }, '{}')))
        }
        expect([route.method, route.url, answers[1]]).toEqual([route.method, route.url, answers[0]])
        const empty = await call(service, route.method, path, { 'content-type': 'application/json' }, '')
        expect([route.method, route.url, empty.status >= 400]).toEqual([route.method, route.url, true])
        expectSound(service, `${route.method} ${route.url} with an empty body`, empty)
        exercised.add(`${service.name} ${route.method} ${route.url}`)
      }
    }
  })

  it('GET answers Accept: application/json and */* alike; HEAD mirrors GET without a body', async () => {
    for (const service of services) {
      for (const route of service.routes.filter((r) => r.method === 'GET')) {
        const path = concrete(route.url)
        const json = await call(service, 'GET', path, { accept: 'application/json' })
        expectSound(service, `GET ${route.url}`, json)
        const any = await call(service, 'GET', path, { accept: '*/*' })
        expect([route.url, any.status, any.type]).toEqual([route.url, json.status, json.type])
        exercised.add(`${service.name} GET ${route.url}`)
      }
      for (const route of service.routes.filter((r) => r.method === 'HEAD')) {
        const path = concrete(route.url)
        const head = await call(service, 'HEAD', path, { accept: 'application/json' })
        const get = await call(service, 'GET', path, { accept: 'application/json' })
        expect([route.url, head.status, head.type, head.text]).toEqual([route.url, get.status, get.type, ''])
        exercised.add(`${service.name} HEAD ${route.url}`)
      }
    }
  })

  it('OPTIONS without CORS configured is 404 in the envelope on every path', async () => {
    for (const service of services) {
      const paths = new Set(service.routes.map((r) => r.url))
      for (const url of paths) {
        const answer = await call(service, 'OPTIONS', concrete(url), { 'content-type': 'application/json' })
        expect([url, answer.status]).toEqual([url, 404])
        expectSound(service, `OPTIONS ${url}`, answer)
      }
    }
  })

  it('the reference console deletes a webhook with its JSON content type (204, then gone)', async () => {
    const cp = services.find((s) => s.name === 'control plane') as Service
    const json = { 'content-type': 'application/json' }
    const created = await call(cp, 'POST', '/webhooks', json, JSON.stringify({ url: 'http://127.0.0.1:9/hook' }))
    expect(created.status).toBe(201)
    const id = (jsonOf(created.text) as { id: string }).id
    expect((await call(cp, 'DELETE', `/webhooks/${id}`, json)).status).toBe(204)
    expect((await call(cp, 'GET', `/webhooks/${id}`)).status).toBe(404)
  })

  it('the registry serves an empty key set with auth off', async () => {
    const registry = services.find((s) => s.name === 'registry') as Service
    const response = await fetch(`${registry.base}/.well-known/jwks.json`, { headers: { accept: '*/*' } })
    expect([response.status, response.headers.get('cache-control'), await response.json()]).toEqual([
      200,
      'public, max-age=300',
      { keys: [] },
    ])
  })

  it('covered every route of both tables', () => {
    const all = services.flatMap((s) => s.routes.map((r) => `${s.name} ${r.method} ${r.url}`))
    expect(all.filter((route) => !exercised.has(route))).toEqual([])
  })
})
