import { describe, expect, it } from 'vitest'
import { createDevLogger } from './dev-logger.js'

const clock = () => new Date('2026-06-12T09:00:01.234Z')

function capture(level = 'info') {
  const lines: string[] = []
  const logger = createDevLogger({ name: 'registry', prefixWidth: 13, write: (line) => lines.push(line), level, clock })
  return { logger, lines }
}

describe('createDevLogger', () => {
  it('prefixes each line with the padded service name, time and level', () => {
    const { logger, lines } = capture()
    logger.info('listening on %s', 'http://127.0.0.1:3000')
    expect(lines).toEqual(['[registry]      09:00:01.234 INFO  listening on http://127.0.0.1:3000\n'])
  })

  it('renders Fastify’s completion record as method, URL, status and time, and drops "incoming request"', () => {
    const { logger, lines } = capture()
    const child = logger.child({ reqId: 'req-1' })
    child.info({ req: { method: 'POST', url: '/contexts' } }, 'incoming request')
    child.info(
      { res: { statusCode: 201, request: { method: 'POST', url: '/contexts' } }, responseTime: 4.123 },
      'request completed',
    )
    expect(lines).toEqual(['[registry]      09:00:01.234 INFO  POST /contexts → 201 (4.1 ms)\n'])
  })

  it('renders the registry’s access line as method, URL, status and time, keeping its error code', () => {
    const { logger, lines } = capture()
    logger.info({ method: 'GET', url: '/contexts/x', status: 400, ms: 0.84, code: 'invalid_ctx_id' }, 'request')
    expect(lines).toEqual(['[registry]      09:00:01.234 INFO  GET /contexts/x → 400 (0.8 ms)  code=invalid_ctx_id\n'])
  })

  it('honours the level, including for children, and silent', () => {
    const { logger, lines } = capture('warn')
    logger.info('hidden')
    logger.child({}).debug('hidden')
    logger.warn({ authority: 'localhost' }, 'shown')
    expect(lines).toEqual(['[registry]      09:00:01.234 WARN  shown  authority=localhost\n'])
    logger.level = 'silent'
    logger.error('hidden')
    expect(lines).toHaveLength(1)
  })

  it('keeps an error’s message, and its stack at error level', () => {
    const { logger, lines } = capture()
    logger.warn(new Error('retrying'))
    logger.error({ err: new Error('boom') }, 'delivery failed')
    expect(lines[0]).toBe('[registry]      09:00:01.234 WARN  retrying\n')
    expect(lines[1]).toMatch(/^\[registry\] {6}09:00:01\.234 ERROR delivery failed: boom\n {6}Error: boom\n/)
  })
})
