import { describe, expect, it } from 'vitest'
import { decodeBase64Strict, encodeBase64 } from './base64.js'
import { protocolErrorCodeOf as code } from '../../test/support/rejection.js'

const sixtyFour = encodeBase64(new Uint8Array(64).map((_, i) => i * 3))

describe('decodeBase64Strict', () => {
  it.each([
    ['', 0],
    ['AA==', 1],
    ['AAA=', 2],
    ['AAAA', 3],
    ['+/+/', 3],
    [sixtyFour, 64],
  ])('decodes canonical %j to %i bytes', (text, length) => {
    const bytes = decodeBase64Strict(text)
    expect(bytes.length).toBe(length)
    expect(encodeBase64(bytes)).toBe(text)
  })

  it.each([
    ['missing padding', 'AA'],
    ['missing one pad', 'AAA'],
    ['extra padding', 'AA==='],
    ['pad in the middle', 'AA==AAAA'],
    ['too much padding', 'A==='],
    ['url-safe minus', sixtyFour.slice(0, 10) + '-' + sixtyFour.slice(11)],
    ['url-safe underscore', sixtyFour.slice(0, 10) + '_' + sixtyFour.slice(11)],
    ['leading space', ` ${sixtyFour}`],
    ['trailing newline', `${sixtyFour}\n`],
    ['inner newline', `${sixtyFour.slice(0, 40)}\n${sixtyFour.slice(40)}`],
    ['non-zero trailing bits before ==', 'AB=='],
    ['non-zero trailing bits before =', 'AAB='],
    ['non-ASCII', 'AAA\u00e9'],
    ['length not a multiple of 4', 'AAAAA'],
  ])('refuses %s', (_name, text) => {
    expect(code(() => decodeBase64Strict(text))).toBe('invalid_signature_encoding')
  })

  it('refuses a non-string value', () => {
    expect(code(() => decodeBase64Strict(42 as unknown as string))).toBe('invalid_signature_encoding')
  })
})
