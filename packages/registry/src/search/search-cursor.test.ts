import { randomBytes } from 'node:crypto'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { createSearchCursorCodec, DEFAULT_SEARCH_CURSOR_TTL_SECONDS, type OpenedSearchCursor } from './search-cursor.js'

const T0 = Date.parse('2026-05-01T12:00:00.000Z')
const TTL_MS = DEFAULT_SEARCH_CURSOR_TTL_SECONDS * 1000
const QUERY = '{"q":"btc","status":"active"}'
const CURSOR: OpenedSearchCursor = {
  position: { createdAtMs: T0 - 5000, ctxId: 'acdp://registry.example.com/550e8400-e29b-41d4-a716-446655440000' },
  snapshotMs: T0,
}

function codecAt(clockMs: { now: number }, secret?: Uint8Array) {
  return createSearchCursorCodec({ secret, clock: () => new Date(clockMs.now), random: (n) => randomBytes(n) })
}

describe('search cursor codec', () => {
  it('opens a cursor it sealed for the same query and returns the position and snapshot', () => {
    const clock = { now: T0 }
    const codec = codecAt(clock)
    const text = codec.seal(QUERY, CURSOR)
    expect(codec.open(text, QUERY)).toEqual({ ok: true, cursor: CURSOR })
  })

  it('does not reveal the position or ctx_id in the cursor text', () => {
    const codec = codecAt({ now: T0 })
    const text = codec.seal(QUERY, CURSOR)
    const decoded = Buffer.from(text, 'base64url').toString('latin1')
    expect(decoded).not.toContain('550e8400')
    expect(decoded).not.toContain(String(CURSOR.position.createdAtMs))
  })

  it('answers invalid_cursor when the cursor is replayed with another query', () => {
    const codec = codecAt({ now: T0 })
    const text = codec.seal(QUERY, CURSOR)
    expect(codec.open(text, '{"q":"eth","status":"active"}')).toEqual({ ok: false, code: 'invalid_cursor' })
  })

  it('answers invalid_cursor for a cursor sealed under another secret', () => {
    const a = codecAt({ now: T0 }, randomBytes(32))
    const b = codecAt({ now: T0 }, randomBytes(32))
    expect(b.open(a.seal(QUERY, CURSOR), QUERY)).toEqual({ ok: false, code: 'invalid_cursor' })
  })

  it('honours cursors across instances that share the configured secret', () => {
    const secret = randomBytes(32)
    const a = codecAt({ now: T0 }, secret)
    const b = codecAt({ now: T0 + 1000 }, secret)
    expect(b.open(a.seal(QUERY, CURSOR), QUERY)).toEqual({ ok: true, cursor: CURSOR })
  })

  it.each([
    { name: 'just sealed', ageMs: 0, expected: 'ok' },
    { name: 'exactly the TTL old', ageMs: TTL_MS, expected: 'ok' },
    { name: 'one millisecond past the TTL', ageMs: TTL_MS + 1, expected: 'cursor_expired' },
    { name: 'a day old', ageMs: 86_400_000, expected: 'cursor_expired' },
    { name: 'minted 59 s in our future (skew)', ageMs: -59_000, expected: 'ok' },
    { name: 'minted 2 minutes in our future', ageMs: -120_000, expected: 'invalid_cursor' },
  ])('a cursor $name answers $expected', ({ ageMs, expected }) => {
    const clock = { now: T0 }
    const codec = codecAt(clock)
    const text = codec.seal(QUERY, CURSOR)
    clock.now = T0 + ageMs
    const result = codec.open(text, QUERY)
    if (expected === 'ok') expect(result.ok).toBe(true)
    else expect(result).toEqual({ ok: false, code: expected })
  })

  it('answers invalid_cursor, not cursor_expired, for an old cursor replayed with another query', () => {
    const clock = { now: T0 }
    const codec = codecAt(clock)
    const text = codec.seal(QUERY, CURSOR)
    clock.now = T0 + 2 * TTL_MS
    expect(codec.open(text, '{"q":"other"}')).toEqual({ ok: false, code: 'invalid_cursor' })
  })

  it.each([
    { name: 'empty', text: '' },
    { name: 'not base64url', text: 'abc$def' },
    { name: 'padding characters', text: 'AAAA==' },
    { name: 'too short to hold a tag', text: 'AQID' },
    { name: 'unknown format version', text: Buffer.alloc(64, 2).toString('base64url') },
    { name: 'over-long', text: 'A'.repeat(5000) },
    { name: 'plain JSON', text: '{"offset":20}' },
  ])('answers invalid_cursor for a malformed cursor ($name)', ({ text }) => {
    expect(codecAt({ now: T0 }).open(text, QUERY)).toEqual({ ok: false, code: 'invalid_cursor' })
  })

  it('never throws and never accepts arbitrary attacker-supplied text', () => {
    const codec = codecAt({ now: T0 })
    fc.assert(
      fc.property(fc.string({ maxLength: 400 }), (text) => {
        expect(codec.open(text, QUERY)).toEqual({ ok: false, code: 'invalid_cursor' })
      }),
    )
  })

  it('answers invalid_cursor for every single-byte modification of a sealed cursor', () => {
    const codec = codecAt({ now: T0 })
    const raw = Buffer.from(codec.seal(QUERY, CURSOR), 'base64url')
    fc.assert(
      fc.property(fc.nat({ max: raw.length - 1 }), fc.integer({ min: 1, max: 255 }), (index, flip) => {
        const tampered = Buffer.from(raw)
        tampered[index] = tampered[index]! ^ flip
        expect(codec.open(tampered.toString('base64url'), QUERY)).toEqual({ ok: false, code: 'invalid_cursor' })
      }),
    )
  })

  it('refuses a secret shorter than 32 bytes and a TTL below one hour', () => {
    const base = { clock: () => new Date(T0), random: (n: number) => randomBytes(n) }
    expect(() => createSearchCursorCodec({ ...base, secret: randomBytes(16) })).toThrow(TypeError)
    expect(() => createSearchCursorCodec({ ...base, ttlSeconds: 3599 })).toThrow(TypeError)
  })
})
