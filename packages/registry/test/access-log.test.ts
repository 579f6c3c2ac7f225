/**
 * Log volume (`registry.access_log`): at most one info line per request, whatever its outcome, so the log grows
 * with the request rate and nothing more; `errors` keeps only answers ≥ 400, `off` none.
 */
import { describe, expect, it } from 'vitest'
import { createRecordingLogger } from '../../../test/support/recording-logger.js'
import { didKeyProducer, minimalUnsigned, publish, signRequest, useTestRegistry } from './support/registry-harness.js'

const N = 12

describe('access log', () => {
  const start = useTestRegistry()

  /** Injects N requests: publishes (201), their retrieval (200), malformed ids (400), a malformed body (400). */
  async function injectRequests(mode?: 'all' | 'errors' | 'off') {
    const recording = createRecordingLogger()
    const r = await start({
      deps: { logger: recording.logger },
      ...(mode === undefined ? {} : { config: { registry: { access_log: mode } } }),
    })
    const before = recording.atOrAbove('info').length
    const statuses: number[] = []
    for (let i = 0; i < N / 4; i++) {
      const p = didKeyProducer()
      const created = await publish(r.app, signRequest(p, minimalUnsigned(p)))
      statuses.push(created.statusCode)
      const ctxId = created.json().ctx_id as string
      statuses.push((await r.app.inject({ url: `/contexts/${encodeURIComponent(ctxId)}` })).statusCode)
      statuses.push((await r.app.inject({ url: `/contexts/${encodeURIComponent(`${ctxId}x`)}` })).statusCode)
      statuses.push(
        (
          await r.app.inject({
            method: 'POST',
            url: '/contexts',
            headers: { 'content-type': 'application/json' },
            payload: '{"not":',
          })
        ).statusCode,
      )
    }
    const lines = recording.atOrAbove('info').slice(before)
    return { statuses, lines }
  }

  it('writes exactly one info line per request by default, with method, route, status and error code', async () => {
    const { statuses, lines } = await injectRequests()
    expect(statuses.filter((status) => status === 201)).toHaveLength(N / 4)
    expect(statuses.filter((status) => status >= 400)).toHaveLength(N / 2)
    expect(lines).toHaveLength(N)
    expect(lines.map((line) => (line.object as { status: number }).status)).toEqual(statuses)
    const refused = lines.find((line) => (line.object as { method: string }).method === 'POST' && line !== lines[0])
    expect(refused?.object).toMatchObject({ url: '/contexts', status: 400, code: expect.any(String) })
    expect(JSON.stringify(lines)).not.toMatch(/authorization/i)
  })

  it('writes only answers of 400 and above with "errors", and none with "off"', async () => {
    const errors = await injectRequests('errors')
    expect(errors.lines).toHaveLength(N / 2)
    expect(errors.lines.every((line) => (line.object as { status: number }).status >= 400)).toBe(true)
    const off = await injectRequests('off')
    expect(off.lines).toHaveLength(0)
  })
})
