import { describe, expect, it } from 'vitest'
import { parseQuotaRules } from './quota-rules.js'

describe('quota rules', () => {
  it('parses tenant and agent entries (DIDs with colons) with sec/min/hour windows', () => {
    expect(
      parseQuotaRules('TENANT_QUOTAS', 'tenant', 'acme:capability.declare=100/min,*=5/sec; *:context.retrieve=9/hour'),
    ).toEqual({
      rules: [
        { scope: 'tenant', subject: 'acme', action: 'capability.declare', limit: 100, windowMs: 60_000 },
        { scope: 'tenant', subject: 'acme', action: '*', limit: 5, windowMs: 1000 },
        { scope: 'tenant', subject: '*', action: 'context.retrieve', limit: 9, windowMs: 3_600_000 },
      ],
      problems: [],
    })
    expect(parseQuotaRules('AGENT_QUOTAS', 'agent', 'did:web:bot.example:capability.declare=2/min').rules).toEqual([
      { scope: 'agent', subject: 'did:web:bot.example', action: 'capability.declare', limit: 2, windowMs: 60_000 },
    ])
  })

  it.each([
    ['TENANT_QUOTAS', 'tenant', 'acme'],
    ['TENANT_QUOTAS', 'tenant', 'acme:publish=1/min'],
    ['TENANT_QUOTAS', 'tenant', 'acme:capability.declare=1/day'],
    ['TENANT_QUOTAS', 'tenant', 'acme:capability.declare=0/min'],
    ['TENANT_QUOTAS', 'tenant', 'bad tenant:*=1/min'],
    ['AGENT_QUOTAS', 'agent', 'bob:*=1/min'],
  ] as const)('%s refuses "%s"', (variable, scope, text) => {
    expect(parseQuotaRules(variable, scope, text).problems.length).toBeGreaterThan(0)
  })
})
