import { createHmac } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { type BoundWebhookHeaders, signWebhookV2, verifyWebhookV2 } from './bound-hmac.js'

const SECRET = 'whsec-test-0123456789abcdef'
const BODY = '{"event_id":"0b6f","type":"context_retracted"}'
const TS = 1_767_225_600
const CHECK = { timestamp: String(TS), nowSeconds: TS, toleranceSeconds: 300 }
const BOUND: BoundWebhookHeaders = { tenantId: 'acme', runId: 'run-1', eventId: 'evt-1' }

/** Golden value computed independently of the code under test. */
function referenceHex(input: string): string {
  return createHmac('sha256', SECRET).update(input).digest('hex')
}

describe('signWebhookV2', () => {
  it('MACs the domain tag, timestamp, the three headers and the body, newline-separated', () => {
    expect(signWebhookV2(SECRET, TS, BOUND, BODY)).toBe(
      `sha256=${referenceHex(`acdp-v2\n${TS}\nacme\nrun-1\nevt-1\n${BODY}`)}`,
    )
  })

  it('signs an absent header as an empty field', () => {
    const bound = { tenantId: undefined, runId: undefined, eventId: 'e' }
    expect(signWebhookV2(SECRET, TS, bound, BODY)).toBe(`sha256=${referenceHex(`acdp-v2\n${TS}\n\n\ne\n${BODY}`)}`)
  })

  it('refuses a bound value with a line break, which could shift one field into the next', () => {
    expect(() => signWebhookV2(SECRET, TS, { ...BOUND, tenantId: 'a\nb' }, BODY)).toThrow(TypeError)
  })
})

describe('verifyWebhookV2', () => {
  const header = signWebhookV2(SECRET, TS, BOUND, BODY)

  it('accepts the exact headers and body inside the window', () => {
    expect(verifyWebhookV2(SECRET, BODY, header, BOUND, CHECK)).toBe(true)
  })

  it.each([
    ['another tenant', { ...BOUND, tenantId: 'other' }],
    ['no tenant', { ...BOUND, tenantId: undefined }],
    ['another run', { ...BOUND, runId: 'run-2' }],
    ['no run', { ...BOUND, runId: undefined }],
    ['a fresh event id', { ...BOUND, eventId: 'evt-2' }],
    ['a field moved into its neighbour', { tenantId: 'acme\nrun-1', runId: undefined, eventId: 'evt-1' }],
  ])('refuses the same body with %s', (_name, bound) => {
    expect(verifyWebhookV2(SECRET, BODY, header, bound, CHECK)).toBe(false)
  })

  it('refuses a modified body and a timestamp outside the tolerance', () => {
    expect(verifyWebhookV2(SECRET, `${BODY} `, header, BOUND, CHECK)).toBe(false)
    expect(verifyWebhookV2(SECRET, BODY, header, BOUND, { ...CHECK, nowSeconds: TS + 301 })).toBe(false)
    expect(verifyWebhookV2(SECRET, BODY, header, BOUND, { ...CHECK, timestamp: undefined })).toBe(false)
  })

  it('is not interchangeable with the timestamped form', () => {
    const timestamped = `sha256=${referenceHex(`${TS}.${BODY}`)}`
    expect(verifyWebhookV2(SECRET, BODY, timestamped, BOUND, CHECK)).toBe(false)
  })
})
