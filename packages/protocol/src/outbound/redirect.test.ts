import { describe, expect, it } from 'vitest'
import { isSameAuthority, planRedirect, type RedirectHop } from './redirect.js'

describe('isSameAuthority (RFC-ACDP-0006 §7.5 table)', () => {
  it.each([
    ['https://a.example/x', 'https://a.example/y', true],
    ['https://a.example/x', 'https://a.example:443/y', true],
    ['https://a.example/x', 'https://A.EXAMPLE/y', true],
    ['https://a.example/x', 'https://a.example:8443/y', false],
    ['https://a.example/x', 'http://a.example/y', false],
    ['https://a.example/x', 'https://b.example/y', false],
    ['https://a.example/x', 'https://a.example./y', false],
    ['https://[::1]:8443/x', 'https://[0:0:0:0:0:0:0:1]:8443/y', true],
    ['https://127.0.0.1/x', 'https://2130706433/y', true],
  ])('%s → %s: %s', (from, to, expected) => {
    expect(isSameAuthority(new URL(from), new URL(to))).toBe(expected)
  })
})

describe('planRedirect', () => {
  const post: RedirectHop = {
    url: new URL('https://a.example/start?q=1'),
    method: 'POST',
    headers: { authorization: 'Bearer secret', 'content-type': 'application/json', 'x-keep': 'yes' },
    body: '{"a":1}',
  }

  it.each([301, 302, 303])('%s turns POST into GET without body or body headers, dropping credentials', (status) => {
    const next = planRedirect(post, status, '/next')
    expect(next).toEqual({
      url: new URL('https://a.example/next'),
      method: 'GET',
      headers: { 'x-keep': 'yes' },
      body: undefined,
    })
  })

  it.each([307, 308])('%s keeps method and body, dropping credentials', (status) => {
    const next = planRedirect(post, status, 'https://a.example:443/next')
    expect(next).toEqual({
      url: new URL('https://a.example/next'),
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-keep': 'yes' },
      body: '{"a":1}',
    })
  })

  it('keeps HEAD as HEAD on a 303', () => {
    expect(planRedirect({ ...post, method: 'HEAD', body: undefined }, 303, '/n').method).toBe('HEAD')
  })

  it.each([
    ['other host', 'https://b.example/x'],
    ['other port', 'https://a.example:8443/x'],
    ['other scheme', 'http://a.example/x'],
    ['protocol-relative other host', '//b.example/x'],
  ])('refuses a cross-authority target (%s) with outbound_refused', (_name, location) => {
    expect(() => planRedirect(post, 302, location)).toThrow(
      expect.objectContaining({
        code: 'outbound_refused',
        details: expect.objectContaining({ reason: 'redirect_cross_origin' }),
      }),
    )
  })

  it('refuses a target with credentials', () => {
    expect(() => planRedirect(post, 302, 'https://user:pw@a.example/x')).toThrow(
      expect.objectContaining({
        code: 'outbound_refused',
        details: expect.objectContaining({ reason: 'credentials_in_url' }),
      }),
    )
  })

  it('reports an unparseable Location as outbound_failed invalid_redirect', () => {
    expect(() => planRedirect(post, 302, 'https://[bad')).toThrow(
      expect.objectContaining({
        code: 'outbound_failed',
        details: expect.objectContaining({ reason: 'invalid_redirect' }),
      }),
    )
  })
})
