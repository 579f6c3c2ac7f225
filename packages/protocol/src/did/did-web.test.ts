import { describe, expect, it } from 'vitest'
import { didWebToUrl } from './did-web.js'
import { splitKeyId } from './key-id.js'
import { protocolErrorReasonOf as reason } from '../../test/support/rejection.js'

describe('didWebToUrl', () => {
  it.each([
    ['did:web:example.com', 'https://example.com/.well-known/did.json'],
    ['did:web:agents.example.com:test-producer', 'https://agents.example.com/test-producer/did.json'],
    ['did:web:example.com:user:alice', 'https://example.com/user/alice/did.json'],
    ['did:web:localhost%3A8443', 'https://localhost:8443/.well-known/did.json'],
    ['did:web:example.com%3a8443:a', 'https://example.com:8443/a/did.json'],
    ['did:web:Example.COM', 'https://example.com/.well-known/did.json'],
    ['did:web:example.com:a%20b', 'https://example.com/a%20b/did.json'],
    ['did:web:xn--bcher-kva.example', 'https://xn--bcher-kva.example/.well-known/did.json'],
  ])('maps %s to %s', (did, url) => {
    expect(didWebToUrl(did).href).toBe(url)
  })

  it.each([
    ['did:key:z6Mk', 'invalid_did:not_did_web'],
    ['did:web:', 'invalid_did:invalid_did_syntax'],
    ['did:web:example.com/path', 'invalid_did:invalid_did_syntax'],
    ['did:web:example.com#frag', 'invalid_did:invalid_did_syntax'],
    ['did:web:user@example.com', 'invalid_did:invalid_did_syntax'],
    ['did:web:127.0.0.1', 'invalid_did:invalid_host'],
    ['did:web:-bad.example', 'invalid_did:invalid_host'],
    ['did:web:bad-.example', 'invalid_did:invalid_host'],
    ['did:web:a..b', 'invalid_did:invalid_host'],
    ['did:web:exa_mple.com', 'invalid_did:invalid_host'],
    [`did:web:${'a'.repeat(64)}.example`, 'invalid_did:invalid_host'],
    ['did:web:example.com%2F..', 'invalid_did:invalid_host'],
    ['did:web:example.com%3A0', 'invalid_did:invalid_port'],
    ['did:web:example.com%3A65536', 'invalid_did:invalid_port'],
    ['did:web:example.com%3A08443', 'invalid_did:invalid_port'],
    ['did:web:example.com%3A', 'invalid_did:invalid_host'],
    ['did:web:example.com::a', 'invalid_did:invalid_path'],
    ['did:web:example.com:a:', 'invalid_did:invalid_path'],
    ['did:web:example.com:..:admin', 'invalid_did:invalid_path'],
    ['did:web:example.com:%2e%2E:admin', 'invalid_did:invalid_path'],
    ['did:web:example.com:.', 'invalid_did:invalid_path'],
    ['did:web:example.com:a%2Fb', 'invalid_did:invalid_path'],
    ['did:web:example.com:a%5cb', 'invalid_did:invalid_path'],
    ['did:web:example.com:a%00', 'invalid_did:invalid_path'],
    ['did:web:example.com:a%zz', 'invalid_did:invalid_path'],
  ])('refuses %s', (did, expected) => {
    expect(reason(() => didWebToUrl(did))).toBe(expected)
  })
})

describe('splitKeyId', () => {
  it('splits at the first "#"', () => {
    expect(splitKeyId('did:web:example.com#key-1')).toEqual({ did: 'did:web:example.com', fragment: 'key-1' })
  })

  it.each([
    ['did:web:example.com', 'invalid_did:missing_fragment'],
    ['did:web:example.com#', 'invalid_did:empty_fragment'],
    ['did:web:example.com#a#b', 'invalid_did:invalid_fragment'],
    ['did:web:example.com#a b', 'invalid_did:invalid_fragment'],
    ['#key-1', 'invalid_did:invalid_did_syntax'],
    ['did:web:example.com/path#key-1', 'invalid_did:invalid_did_syntax'],
    ['DID:web:example.com#key-1', 'invalid_did:invalid_did_syntax'],
    [`did:web:example.com#${'k'.repeat(2048)}`, 'invalid_did:too_long'],
    [42, 'invalid_did:invalid_did_syntax'],
  ])('refuses %j', (keyId, expected) => {
    expect(reason(() => splitKeyId(keyId as string))).toBe(expected)
  })
})
