import { describe, expect, it } from 'vitest'
import { isProtocolError } from '../errors.js'
import { formatSha256, isSha256String, parseSha256, sha256, sha256String } from './sha256.js'

const EMPTY = 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855'
const ABC = 'ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad'

describe('sha256 helpers', () => {
  it('hashes bytes and UTF-8 strings (FIPS 180-2 "abc" vector)', () => {
    expect(Buffer.from(sha256('abc')).toString('hex')).toBe(ABC)
    expect(Buffer.from(sha256(new Uint8Array([0x61, 0x62, 0x63]))).toString('hex')).toBe(ABC)
    expect(sha256String('')).toBe(`sha256:${EMPTY}`)
    expect(sha256('é')).toEqual(sha256(new Uint8Array([0xc3, 0xa9])))
  })

  it('returns a plain 32-byte Uint8Array view', () => {
    const digest = sha256('abc')
    expect(digest).toBeInstanceOf(Uint8Array)
    expect(digest.length).toBe(32)
  })

  it('formats and parses the sha256: form symmetrically', () => {
    const digest = sha256('abc')
    const text = formatSha256(digest)
    expect(text).toBe(`sha256:${ABC}`)
    expect(parseSha256(text)).toEqual(new Uint8Array(digest))
    expect(() => formatSha256(new Uint8Array(31))).toThrow(TypeError)
  })

  it.each([
    [`sha256:${ABC}`, true],
    [`sha256:${ABC.toUpperCase()}`, false],
    [`SHA256:${ABC}`, false],
    [`sha256:${ABC.slice(1)}`, false],
    [`sha256:${ABC}0`, false],
    [` sha256:${ABC}`, false],
    [`sha256:${ABC}\n`, false],
    [`sha512:${ABC}`, false],
    [ABC, false],
    [`sha256:${ABC.slice(1)}g`, false],
    [42, false],
    [null, false],
  ])('isSha256String(%j) is %s and parseSha256 agrees', (value, ok) => {
    expect(isSha256String(value)).toBe(ok)
    if (typeof value !== 'string') return
    if (ok) {
      expect(parseSha256(value).length).toBe(32)
    } else {
      try {
        parseSha256(value)
        expect.unreachable()
      } catch (error) {
        expect(isProtocolError(error) && error.code).toBe('invalid_hash_format')
      }
    }
  })
})
