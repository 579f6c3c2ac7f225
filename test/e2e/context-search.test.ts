/**
 * GET /contexts/search of the control plane against a real registry (the dev stack: both services on loopback
 * sockets, the registry enrolled with its base URL): a published context is found by a word of its title, the
 * registry's signed cursor pages through the control plane untouched, a forged cursor comes back as the
 * registry's own refusal in that registry's entry, and the route's own refusals use the control plane envelope.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createProducer, createProducerKey } from '@acdp/protocol'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEV_REGISTRY_AUTHORITY, type RunningDevStack, startDevStack } from '../../packages/cli/src/dev/dev-stack.js'

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are untyped JSON in tests
type Json = any

describe('control plane context search against the dev registry', () => {
  let dataDir: string
  let stack: RunningDevStack
  const word = `zebra${Date.now().toString(36)}`
  const published: string[] = []

  const search = async (query: string, key: string | null = stack.secrets.control_plane_api_key) => {
    const response = await fetch(`${stack.controlPlaneUrl}/contexts/search?${query}`, {
      headers: key === null ? {} : { authorization: `Bearer ${key}` },
      signal: AbortSignal.timeout(10_000),
    })
    return { status: response.status, body: (await response.json()) as Json }
  }

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'acdp-context-search-'))
    stack = await startDevStack({
      dataDir,
      host: '127.0.0.1',
      registryPort: 0,
      controlPlanePort: 0,
      logLevel: 'warn',
      writeLog: () => {},
    })
    const producer = createProducer({ registryUrl: stack.registryUrl, key: createProducerKey() })
    for (const n of [1, 2]) {
      const result = await producer.publish(
        { type: 'analysis', title: `${word} finding ${n}` },
        { runId: 'search-run' },
      )
      published.push(result.ctxId)
    }
    await producer.publish({ type: 'analysis', title: 'unrelated note' }, { runId: 'search-run' })
  }, 120_000)

  afterAll(async () => {
    await stack?.close()
    if (dataDir) rmSync(dataDir, { recursive: true, force: true })
  })

  it('finds the published contexts by a word of their title, in the registry entry, with its estimate', async () => {
    const { status, body } = await search(`q=${word}&type=analysis`)
    expect(status).toBe(200)
    expect(body.registries).toHaveLength(1)
    const [entry] = body.registries
    expect(entry).toMatchObject({ authority: DEV_REGISTRY_AUTHORITY, outcome: 'ok', error: null, total_estimate: 2 })
    expect(entry.matches.map((m: Json) => m.ctx_id).sort()).toEqual([...published].sort())
    expect(entry.matches[0]).toMatchObject({ type: 'analysis', status: 'active', visibility: 'public' })
    expect(entry.next_cursor).toBeNull()
  })

  it("pages one registry with its own signed cursor, relayed verbatim, and relays a forged cursor's refusal", async () => {
    const first = await search(`q=${word}&limit=1`)
    const [page1] = first.body.registries
    expect(page1.matches).toHaveLength(1)
    expect(typeof page1.next_cursor).toBe('string')
    const second = await search(
      `q=${word}&limit=1&registry=${DEV_REGISTRY_AUTHORITY}&cursor=${encodeURIComponent(page1.next_cursor)}`,
    )
    expect(second.status).toBe(200)
    const [page2] = second.body.registries
    expect(page2.outcome).toBe('ok')
    expect([page1.matches[0].ctx_id, page2.matches[0].ctx_id].sort()).toEqual([...published].sort())
    // The cursor is bound to its query (RFC-ACDP-0005 §2.5.4): with another q the registry refuses it.
    const forged = await search(
      `q=other&limit=1&registry=${DEV_REGISTRY_AUTHORITY}&cursor=${encodeURIComponent(page1.next_cursor)}`,
    )
    expect(forged.status).toBe(200)
    expect(forged.body.registries[0]).toMatchObject({ outcome: 'error', matches: [], error: { status: 400 } })
    expect(forged.body.registries[0].error.code).toBe('invalid_cursor')
  })

  it("relays a lineage's versions and its head with the head receipt, and refuses a malformed lineage id", async () => {
    const producer = createProducer({ registryUrl: stack.registryUrl, key: createProducerKey() })
    const v1 = await producer.publish({ type: 'analysis', title: 'lineage v1' })
    const v2 = await producer.publish({ type: 'analysis', title: 'lineage v2' }, { supersedes: v1.ctxId })
    const lineageId = String((v1.response as Json).lineage_id)
    const response = await fetch(
      `${stack.controlPlaneUrl}/registries/${DEV_REGISTRY_AUTHORITY}/lineages/${encodeURIComponent(lineageId)}`,
      { headers: { authorization: `Bearer ${stack.secrets.control_plane_api_key}` } },
    )
    expect(response.status).toBe(200)
    const body = (await response.json()) as Json
    expect(body.versions.map((v: Json) => [v.body.ctx_id, v.registry_state.status])).toEqual([
      [v1.ctxId, 'superseded'],
      [v2.ctxId, 'active'],
    ])
    expect(body.current.body.ctx_id).toBe(v2.ctxId)
    expect(body.current.lineage_head_receipt).toMatchObject({ lineage_id: lineageId, head_ctx_id: v2.ctxId })
    const malformed = await fetch(`${stack.controlPlaneUrl}/registries/${DEV_REGISTRY_AUTHORITY}/lineages/lin:x`, {
      headers: { authorization: `Bearer ${stack.secrets.control_plane_api_key}` },
    })
    expect(malformed.status).toBe(400)
  })

  it('refuses a cursor without its registry, an unknown registry, an unknown parameter and no credential', async () => {
    const orphan = await search('q=x&cursor=abc')
    expect(orphan.status).toBe(400)
    expect(orphan.body.errorCode).toBe('VALIDATION_ERROR')
    const unknown = await search('q=x&registry=nobody.example')
    expect(unknown.status).toBe(404)
    expect(unknown.body.errorCode).toBe('REGISTRY_NOT_FOUND')
    const extra = await search('q=x&visibility=private')
    expect(extra.status).toBe(400)
    const anonymous = await search(`q=${word}`, null)
    expect(anonymous.status).toBe(401)
  })
})
