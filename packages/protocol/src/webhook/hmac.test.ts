import { createHmac } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { signWebhookBody, verifyWebhookSignature } from './hmac.js'

const SECRET = 'whsec-test-0123456789abcdef'
const BODY = '{"type":"context_published","ctx_id":"acdp://reg.example/abc","n":1}'

/** Golden value computed independently of the code under test. */
function referenceHex(secret: string | Uint8Array, body: string | Uint8Array): string {
  return createHmac('sha256', secret).update(body).digest('hex')
}

describe('signWebhookBody', () => {
  it('returns sha256= and the lowercase hex HMAC-SHA256 of the raw body', () => {
    expect(signWebhookBody(SECRET, BODY)).toBe(`sha256=${referenceHex(SECRET, BODY)}`)
    expect(signWebhookBody(SECRET, BODY)).toMatch(/^sha256=[0-9a-f]{64}$/)
  })

  it('signs string and byte bodies and secrets identically', () => {
    const bytes = new TextEncoder().encode(BODY)
    const key = new TextEncoder().encode(SECRET)
    expect(signWebhookBody(key, bytes)).toBe(signWebhookBody(SECRET, BODY))
  })

  it('keys the MAC with the UTF-8 bytes of a non-ASCII string secret', () => {
    const secret = 'sécret-ключ-🔑-0123456789'
    expect(signWebhookBody(secret, BODY)).toBe(signWebhookBody(new TextEncoder().encode(secret), BODY))
    expect(signWebhookBody(secret, BODY)).toBe(`sha256=${referenceHex(Buffer.from(secret, 'utf8'), BODY)}`)
  })

  it('signs the exact bytes, including non-UTF-8 and whitespace', () => {
    const raw = Uint8Array.from([0xff, 0x00, 0x20, 0x7b, 0x7d, 0x0a])
    expect(signWebhookBody(SECRET, raw)).toBe(`sha256=${referenceHex(SECRET, raw)}`)
  })

  it('signs an empty body', () => {
    expect(signWebhookBody(SECRET, '')).toBe(`sha256=${referenceHex(SECRET, '')}`)
  })

  it.each([
    ['empty string', ''],
    ['empty bytes', new Uint8Array(0)],
  ])('refuses an empty secret (%s) with TypeError', (_name, secret) => {
    expect(() => signWebhookBody(secret, BODY)).toThrow(TypeError)
  })
})

describe('verifyWebhookSignature', () => {
  const hex = referenceHex(SECRET, BODY)

  it.each([
    ['sha256= prefix, lowercase hex', `sha256=${hex}`],
    ['bare lowercase hex', hex],
    ['sha256= prefix, uppercase hex', `sha256=${hex.toUpperCase()}`],
    ['surrounding whitespace', `  sha256=${hex}\t`],
  ])('accepts a correct signature: %s', (_name, header) => {
    expect(verifyWebhookSignature(SECRET, BODY, header)).toBe(true)
  })

  it('accepts a byte body equal to the signed string', () => {
    expect(verifyWebhookSignature(SECRET, new TextEncoder().encode(BODY), `sha256=${hex}`)).toBe(true)
  })

  it('rejects a tampered body', () => {
    expect(verifyWebhookSignature(SECRET, BODY.replace('"n":1', '"n":2'), `sha256=${hex}`)).toBe(false)
    expect(verifyWebhookSignature(SECRET, `${BODY} `, `sha256=${hex}`)).toBe(false)
  })

  it('rejects the right body under another secret', () => {
    expect(verifyWebhookSignature(`${SECRET}x`, BODY, `sha256=${hex}`)).toBe(false)
  })

  it.each([
    ['missing header', undefined],
    ['empty header', ''],
    ['prefix only', 'sha256='],
    ['one hex digit flipped', `sha256=${hex.slice(0, -1)}${hex.endsWith('0') ? '1' : '0'}`],
    ['truncated by one digit (length mismatch)', `sha256=${hex.slice(0, -1)}`],
    ['truncated by one byte (length mismatch)', `sha256=${hex.slice(0, -2)}`],
    ['one extra byte (length mismatch)', `sha256=${hex}00`],
    ['non-hex characters', `sha256=${hex.slice(0, -2)}zz`],
    ['other algorithm prefix', `sha512=${hex}`],
    ['uppercase prefix', `SHA256=${hex}`],
    ['prefix repeated', `sha256=sha256=${hex}`],
    ['base64 digest', `sha256=${Buffer.from(hex, 'hex').toString('base64')}`],
    ['two signatures joined', `sha256=${hex},sha256=${hex}`],
  ])('rejects a malformed or wrong header without throwing: %s', (_name, header) => {
    expect(verifyWebhookSignature(SECRET, BODY, header)).toBe(false)
  })

  it('rejects a non-string header value without throwing', () => {
    expect(verifyWebhookSignature(SECRET, BODY, ['a'] as unknown as string)).toBe(false)
  })

  it('refuses an empty secret with TypeError rather than verifying against it', () => {
    expect(() => verifyWebhookSignature('', BODY, `sha256=${referenceHex('x', BODY)}`)).toThrow(TypeError)
  })
})
