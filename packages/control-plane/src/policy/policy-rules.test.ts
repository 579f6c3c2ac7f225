import { describe, expect, it } from 'vitest'
import { decide, globMatch, parsePolicyRules, type PolicyRequest } from './policy-rules.js'

const request: PolicyRequest = {
  action: 'context.retrieve',
  tenantId: 'acme',
  subject: 'did:web:bot.acme.example',
  credential: 'jwt',
  resource: 'acdp://reg.acme.example/0b6b1b7e-1d5c-4c3e-9a57-3f1f7f3f2a10',
}

describe('policy rules', () => {
  it('lets the first matching rule decide, then the default', () => {
    const { rules, problems } = parsePolicyRules(
      JSON.stringify([
        { action: 'context.retrieve', effect: 'allow', subjects: ['did:web:*.acme.example'], tenants: ['acme'] },
        { action: '*', effect: 'deny', credentials: ['jwt'], code: 'agents_blocked', reason: 'no agents here' },
      ]),
    )
    expect(problems).toEqual([])
    expect(decide(rules, 'deny', request)).toEqual({ allow: true })
    expect(decide(rules, 'allow', { ...request, tenantId: 'globex' })).toEqual({
      allow: false,
      code: 'agents_blocked',
      reason: 'no agents here',
    })
    expect(decide(rules, 'allow', { ...request, tenantId: 'globex', credential: 'api_key' })).toEqual({ allow: true })
    expect(decide(rules, 'deny', { ...request, tenantId: 'globex', credential: 'api_key' })).toMatchObject({
      allow: false,
      code: 'default_deny',
    })
  })

  it('matches resources with * globs', () => {
    expect(globMatch('acdp://reg.acme.example/*', request.resource)).toBe(true)
    expect(globMatch('acdp://*.acme.example/*', request.resource)).toBe(true)
    expect(globMatch('acdp://reg.globex.example/*', request.resource)).toBe(false)
    expect(globMatch('urn:acdp:cap:*:*:finance', 'urn:acdp:cap:read:note:finance')).toBe(true)
    expect(globMatch('urn:acdp:cap:*:*:finance', 'urn:acdp:cap:read:note:ops')).toBe(false)
    expect(globMatch('a*a', 'a')).toBe(false)
    expect(globMatch('exact', 'exact')).toBe(true)
  })

  it.each([
    ['not JSON', '{'],
    ['not an array', '{}'],
    ['an unknown action', '[{"action":"run.read","effect":"deny"}]'],
    ['an unknown effect', '[{"action":"*","effect":"maybe"}]'],
    ['an unknown member', '[{"action":"*","effect":"deny","tenant":"acme"}]'],
    ['a non-list condition', '[{"action":"*","effect":"deny","tenants":"acme"}]'],
    ['a bad credential kind', '[{"action":"*","effect":"deny","credentials":["admin"]}]'],
    ['a bad code', '[{"action":"*","effect":"deny","code":"Not Snake"}]'],
  ])('refuses %s', (_name, text) => {
    expect(parsePolicyRules(text).problems.length).toBeGreaterThan(0)
  })
})
