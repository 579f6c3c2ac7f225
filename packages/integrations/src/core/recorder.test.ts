import { randomUUID } from 'node:crypto'
import { createProducerKey } from '@acdp/protocol'
import { describe, expect, it } from 'vitest'
import { createRecorder } from './recorder.js'
import { RecordingError, type RecorderConfig } from './recorder-config.js'

interface SeenPublish {
  body: Record<string, unknown>
  headers: Headers
}

/** A registry stand-in: answers each publish with `answer(n)` (default 201 with a fresh ctx_id). */
function fakeRegistry(answer?: (attempt: number, signal: AbortSignal | undefined) => Promise<Response> | Response) {
  const seen: SeenPublish[] = []
  const fetch: typeof globalThis.fetch = async (_input, init) => {
    seen.push({ body: JSON.parse(String(init?.body)) as Record<string, unknown>, headers: new Headers(init?.headers) })
    if (answer !== undefined) return answer(seen.length, init?.signal ?? undefined)
    return created()
  }
  return { fetch, seen }
}

function created(): Response {
  const ctxId = `acdp://registry.test/${randomUUID()}`
  return new Response(JSON.stringify({ ctx_id: ctxId }), { status: 201, headers: { location: '/contexts/x' } })
}

function refused(status: number, code: string): Response {
  return new Response(JSON.stringify({ error: { code, message: 'no' } }), { status })
}

/** Resolves when `signal` aborts (a registry that never answers). */
function never(signal: AbortSignal | undefined): Promise<Response> {
  return new Promise((_resolve, reject) => signal?.addEventListener('abort', () => reject(signal.reason)))
}

function config(fetch: typeof globalThis.fetch, extra: Partial<RecorderConfig> = {}): RecorderConfig {
  return { registryUrl: 'http://registry.test', key: createProducerKey(), fetch, retryBaseMs: 1, ...extra }
}

const STEP = { kind: 'model', name: 'research', output: 'facts' } as const

describe('createRecorder', () => {
  it('tags every publish with the run id and a per-record Idempotency-Key, and links derived_from', async () => {
    const registry = fakeRegistry()
    const recorder = createRecorder('ai-sdk', config(registry.fetch, { run: { id: 'run-1' } }))
    const first = await recorder.record(STEP)
    await recorder.record({ ...STEP, name: 'analysis', derivedFrom: [first!] })
    const [a, b] = registry.seen
    expect(a!.headers.get('x-run-id')).toBe('run-1')
    expect(a!.headers.get('idempotency-key')).not.toBe(b!.headers.get('idempotency-key'))
    expect(b!.body['derived_from']).toEqual([await first!.ctxId])
    expect(b!.body['metadata']).toMatchObject({
      integration: { framework: 'ai-sdk', kind: 'model', name: 'analysis', sequence: 2 },
    })
  })

  it('retries a 429 and a 503 with the same Idempotency-Key, and not a 400', async () => {
    const registry = fakeRegistry((attempt) =>
      attempt === 1 ? refused(429, 'rate_limited') : attempt === 2 ? refused(503, 'busy') : created(),
    )
    const recorder = createRecorder('ai-sdk', config(registry.fetch))
    await recorder.record(STEP)
    expect(registry.seen).toHaveLength(3)
    expect(new Set(registry.seen.map((seen) => seen.headers.get('idempotency-key'))).size).toBe(1)
    expect(recorder.stats()).toMatchObject({ published: 1, retries: 2 })

    const schema = fakeRegistry(() => refused(400, 'schema_violation'))
    const strict = createRecorder('ai-sdk', config(schema.fetch))
    await expect(strict.record(STEP)).rejects.toMatchObject({ name: 'RecordingError', reason: 'publish_failed' })
    expect(schema.seen).toHaveLength(1)
  })

  it('record-or-fail: a registry that never answers fails the step at the publish deadline', async () => {
    const registry = fakeRegistry((_attempt, signal) => never(signal))
    const recorder = createRecorder('ai-sdk', config(registry.fetch, { publishDeadlineMs: 150, attemptTimeoutMs: 100 }))
    const error = await recorder.record(STEP).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(RecordingError)
    expect(recorder.stats()).toMatchObject({ failed: 1, published: 0, pending: 0 })
  })

  it('best-effort: the step does not wait for the registry; the publication settles in the background', async () => {
    let release!: () => void
    const gate = new Promise<void>((resolve) => (release = resolve))
    const registry = fakeRegistry(async () => {
      await gate
      return created()
    })
    const recorder = createRecorder('ai-sdk', config(registry.fetch, { failurePolicy: 'best-effort' }))
    const handle = await recorder.record(STEP)
    expect(recorder.stats()).toMatchObject({ pending: 1, published: 0 })
    release()
    await recorder.flush()
    expect(await handle!.ctxId).toMatch(/^acdp:\/\/registry\.test\//)
    expect(recorder.stats()).toMatchObject({ pending: 0, published: 1 })
  })

  it('best-effort: a full queue drops the record after maxBlockMs and counts it', async () => {
    const registry = fakeRegistry((_attempt, signal) => never(signal))
    const errors: string[] = []
    const recorder = createRecorder(
      'ai-sdk',
      config(registry.fetch, {
        failurePolicy: 'best-effort',
        maxQueued: 1,
        maxBlockMs: 0,
        publishDeadlineMs: 200,
        onError: (error) => errors.push(error.reason),
      }),
    )
    expect(await recorder.record(STEP)).toBeDefined()
    expect(await recorder.record(STEP)).toBeUndefined()
    expect(recorder.stats()).toMatchObject({ dropped: 1, pending: 1 })
    await recorder.flush()
    expect(errors).toEqual(['queue_full', 'deadline'])
  })

  it('signs each role with its own key, applies the filter and the redaction hook', async () => {
    const registry = fakeRegistry()
    const keys = { research: createProducerKey(), analysis: createProducerKey() }
    const recorder = createRecorder('langgraph', {
      registryUrl: 'http://registry.test',
      keys,
      fetch: registry.fetch,
      record: ['model'],
      redact: (body) => ({ ...body, metadata: { ...(body['metadata'] as object), output: '[redacted]' } }),
    })
    await recorder.record(STEP)
    await recorder.record({ ...STEP, name: 'analysis' })
    expect(await recorder.record({ kind: 'tool', name: 'research', output: 1 })).toBeUndefined()
    expect(registry.seen.map((seen) => seen.body['agent_id'])).toEqual([keys.research.did, keys.analysis.did])
    expect(registry.seen[0]!.body['metadata']).toMatchObject({ output: '[redacted]' })
    await expect(recorder.record({ ...STEP, name: 'alert' })).rejects.toThrow(/no key for agent role "alert"/)
  })

  it('cuts an output over maxOutputBytes and keeps the hash of the whole', async () => {
    const registry = fakeRegistry()
    const recorder = createRecorder('ai-sdk', config(registry.fetch, { maxOutputBytes: 64 }))
    await recorder.record({ ...STEP, output: 'é'.repeat(100) })
    const metadata = registry.seen[0]!.body['metadata'] as Record<string, unknown>
    expect(metadata).toMatchObject({ output_truncated: true, output_bytes: 202 })
    expect(Buffer.byteLength(String(metadata['output']))).toBeLessThanOrEqual(64)
    expect(metadata['output_sha256']).toMatch(/^[0-9a-f]{64}$/)
  })

  it.each([
    [{ registryUrl: 'not a url' }, /registryUrl/],
    [{ key: undefined }, /key/],
    [{ run: { id: 'has space' } }, /run.id/],
    [{ concurrency: 0 }, /concurrency/],
    [{ run: { controlPlane: { url: 'http://cp.test', runSecret: '' } } }, /runSecret/],
  ] as const)('refuses a configuration mistake at set-up: %o', (override, message) => {
    const base = config(globalThis.fetch)
    expect(() => createRecorder('ai-sdk', { ...base, ...override } as RecorderConfig)).toThrow(message)
  })
})
