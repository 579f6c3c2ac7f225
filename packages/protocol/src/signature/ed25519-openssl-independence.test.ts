/**
 * Replaces OpenSSL's verify with one that accepts everything, to show the strictness rules stand
 * on their own: whatever OpenSSL build Node links, these forgeries are refused before it runs.
 */
import { describe, expect, it, vi } from 'vitest'

vi.mock('node:crypto', async (importOriginal) => {
  const original = await importOriginal<typeof import('node:crypto')>()
  return { ...original, verify: () => true }
})

const { verifyEd25519 } = await import('./ed25519.js')
const { SMALL_ORDER_ENCODINGS } = await import('./ed25519-small-order.js')

const L = 2n ** 252n + 27742317777372353535851937790883648493n
const goodKey = new Uint8Array(32).fill(9)
const message = new TextEncoder().encode('anything')

describe('verifyEd25519 with an OpenSSL that accepts every signature', () => {
  it('still returns true for a well-formed pair (the permissive stand-in is really in use)', () => {
    expect(verifyEd25519(goodKey, message, new Uint8Array(64).fill(3))).toBe(true)
  })

  it('refuses the identity public key with R = identity and S = 0', () => {
    const identity = new Uint8Array(32)
    identity[0] = 1
    const forged = new Uint8Array(64)
    forged[0] = 1
    expect(verifyEd25519(identity, message, forged)).toBe(false)
  })

  it.each(SMALL_ORDER_ENCODINGS.map((e) => [Buffer.from(e).toString('hex')]))(
    'refuses small-order key and small-order R %s',
    (encoding) => {
      const bytes = Buffer.from(encoding, 'hex')
      expect(verifyEd25519(bytes, message, new Uint8Array(64).fill(3))).toBe(false)
      const sig = new Uint8Array(64).fill(3)
      sig.set(bytes, 0)
      expect(verifyEd25519(goodKey, message, sig)).toBe(false)
    },
  )

  it('refuses S = L', () => {
    const sig = new Uint8Array(64).fill(3)
    let rest = L
    for (let i = 32; i < 64; i++) {
      sig[i] = Number(rest & 0xffn)
      rest >>= 8n
    }
    expect(verifyEd25519(goodKey, message, sig)).toBe(false)
  })
})
