import { createHmac } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { signTimestampedWebhook, verifyTimestampedWebhook } from './timestamped-hmac.js'

const SECRET = 'whsec-test-0123456789abcdef'
const BODY = '{"event_id":"0b6f","type":"context_retrieved"}'
const TS = 1_767_225_600
const TOLERANCE = 300

/** Golden value: HMAC-SHA256(secret, "<ts>." ‖ body), computed independently of the code under test. */
function referenceHex(secret: string, ts: string, body: string): string {
  return createHmac('sha256', secret).update(`${ts}.${body}`).digest('hex')
}

describe('signTimestampedWebhook', () => {
  it('returns sha256= and the hex HMAC of "<ts>." followed by the raw body', () => {
    expect(signTimestampedWebhook(SECRET, TS, BODY)).toBe(`sha256=${referenceHex(SECRET, String(TS), BODY)}`)
  })

  it('differs from the untimestamped signature of the same body', () => {
    const plain = createHmac('sha256', SECRET).update(BODY).digest('hex')
    expect(signTimestampedWebhook(SECRET, TS, BODY)).not.toBe(`sha256=${plain}`)
  })

  it.each([
    ['negative', -1],
    ['fractional', 1.5],
    ['NaN', Number.NaN],
    ['unsafe integer', 2 ** 53],
  ])('refuses a %s timestamp with TypeError', (_name, ts) => {
    expect(() => signTimestampedWebhook(SECRET, ts, BODY)).toThrow(TypeError)
  })

  it('refuses an empty secret with TypeError', () => {
    expect(() => signTimestampedWebhook('', TS, BODY)).toThrow(TypeError)
  })
})

describe('verifyTimestampedWebhook', () => {
  const header = signTimestampedWebhook(SECRET, TS, BODY)
  const check = (overrides: Partial<{ timestamp: string | undefined; nowSeconds: number }> = {}) => ({
    timestamp: String(TS),
    nowSeconds: TS,
    toleranceSeconds: TOLERANCE,
    ...overrides,
  })

  it.each([
    ['receiver clock equal', TS, true],
    ['receiver ahead by tolerance − 1 s', TS + TOLERANCE - 1, true],
    ['receiver ahead by exactly the tolerance', TS + TOLERANCE, true],
    ['receiver ahead by tolerance + 1 s', TS + TOLERANCE + 1, false],
    ['receiver behind by tolerance − 1 s', TS - TOLERANCE + 1, true],
    ['receiver behind by exactly the tolerance', TS - TOLERANCE, true],
    ['receiver behind by tolerance + 1 s', TS - TOLERANCE - 1, false],
  ])('%s → %s', (_name, nowSeconds, expected) => {
    expect(verifyTimestampedWebhook(SECRET, BODY, header, check({ nowSeconds }))).toBe(expected)
  })

  it('accepts the golden value computed with node:crypto', () => {
    const golden = `sha256=${referenceHex(SECRET, String(TS), BODY)}`
    expect(verifyTimestampedWebhook(SECRET, new TextEncoder().encode(BODY), golden, check())).toBe(true)
  })

  it('rejects a rewritten timestamp header, even inside the window', () => {
    expect(verifyTimestampedWebhook(SECRET, BODY, header, check({ timestamp: String(TS + 1) }))).toBe(false)
  })

  it('rejects a tampered body', () => {
    expect(verifyTimestampedWebhook(SECRET, `${BODY}\n`, header, check())).toBe(false)
  })

  it('rejects another secret', () => {
    expect(verifyTimestampedWebhook(`${SECRET}x`, BODY, header, check())).toBe(false)
  })

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['leading zero', `0${TS}`],
    ['plus sign', `+${TS}`],
    ['fractional', `${TS}.0`],
    ['milliseconds-looking but far in the future', `${TS}000`],
    ['hex', `0x${TS.toString(16)}`],
    ['not a number', 'yesterday'],
  ])('rejects a malformed timestamp header (%s) without throwing', (_name, timestamp) => {
    expect(verifyTimestampedWebhook(SECRET, BODY, header, check({ timestamp }))).toBe(false)
  })

  it.each([
    ['missing', undefined],
    ['length mismatch', header.slice(0, -2)],
    ['garbage', 'sha256=not-hex'],
    ['plain body signature', `sha256=${createHmac('sha256', SECRET).update(BODY).digest('hex')}`],
  ])('rejects a bad signature header (%s) without throwing', (_name, value) => {
    expect(verifyTimestampedWebhook(SECRET, BODY, value, check())).toBe(false)
  })

  it('refuses caller misuse (negative tolerance, non-finite clock) with TypeError', () => {
    expect(() => verifyTimestampedWebhook(SECRET, BODY, header, { ...check(), toleranceSeconds: -1 })).toThrow(
      TypeError,
    )
    expect(() => verifyTimestampedWebhook(SECRET, BODY, header, check({ nowSeconds: Number.NaN }))).toThrow(TypeError)
  })
})
