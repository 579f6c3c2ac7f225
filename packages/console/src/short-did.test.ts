import { describe, expect, it } from 'vitest'
import { shortDid } from './short-did.js'

describe('shortDid', () => {
  it('keeps the method, the start and the end of a long DID', () => {
    expect(shortDid('did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK')).toBe('did:key:z6MkhaXg…2doK')
    expect(shortDid('did:web:agents.example.com:team:alpha:bot')).toBe('did:web:agents.e…:bot')
  })

  it('leaves a short DID or a non-DID string of the same length as is', () => {
    expect(shortDid('did:web:a.example')).toBe('did:web:a.example')
    expect(shortDid('x'.repeat(40))).toBe(`${'x'.repeat(8)}…xxxx`)
  })
})
