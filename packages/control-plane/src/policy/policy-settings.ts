/**
 * Configuration of the policy engine and quotas: POLICY_RULES, POLICY_DEFAULT, TENANT_QUOTAS, AGENT_QUOTAS and
 * QUOTA_STORE. Parsed once at boot; any malformed rule refuses the configuration.
 */
import type { EnvReader } from '../config.js'
import { parsePolicyRules, type PolicyRule } from './policy-rules.js'
import { parseQuotaRules, type QuotaRule } from './quota-rules.js'

export interface PolicyConfig {
  /** POLICY_RULES: the ordered rules (policy/policy-rules.ts). */
  readonly rules: readonly PolicyRule[]
  /** POLICY_DEFAULT, default allow: the decision when no rule matches. */
  readonly defaultEffect: 'allow' | 'deny'
  /** TENANT_QUOTAS and AGENT_QUOTAS (policy/quota-rules.ts). */
  readonly quotas: readonly QuotaRule[]
  /** QUOTA_STORE: `memory` (per instance) or `database` (shared by every instance on the database). */
  readonly quotaStore: 'memory' | 'database'
}

export function readPolicyConfig(read: EnvReader): PolicyConfig {
  const policy = parsePolicyRules(read.string('POLICY_RULES'))
  for (const problem of policy.problems) read.refuse(problem)
  const defaultEffect = read.string('POLICY_DEFAULT', 'allow') || 'allow'
  if (defaultEffect !== 'allow' && defaultEffect !== 'deny') {
    read.refuse(`POLICY_DEFAULT must be allow or deny, got "${defaultEffect}"`)
  }
  const tenant = parseQuotaRules('TENANT_QUOTAS', 'tenant', read.string('TENANT_QUOTAS'))
  const agent = parseQuotaRules('AGENT_QUOTAS', 'agent', read.string('AGENT_QUOTAS'))
  for (const problem of [...tenant.problems, ...agent.problems]) read.refuse(problem)
  const store = read.string('QUOTA_STORE', 'memory') || 'memory'
  if (store !== 'memory' && store !== 'database') read.refuse(`QUOTA_STORE must be memory or database, got "${store}"`)
  return {
    rules: policy.rules,
    defaultEffect: defaultEffect === 'deny' ? 'deny' : 'allow',
    quotas: [...tenant.rules, ...agent.rules],
    quotaStore: store === 'database' ? 'database' : 'memory',
  }
}
