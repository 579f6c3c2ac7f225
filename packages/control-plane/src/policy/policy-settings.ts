/**
 * Configuration of the policy engine and quotas: POLICY_RULES, POLICY_DEFAULT, TENANT_QUOTAS, AGENT_QUOTAS and
 * QUOTA_STORE. Parsed once at boot; any malformed rule refuses the configuration.
 */
import type { ConfigReader } from '../core/config.js'
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

export function readPolicyConfig(read: ConfigReader): PolicyConfig {
  const policy = parsePolicyRules(read.env.POLICY_RULES)
  for (const problem of policy.problems) read.refuse(problem)
  const tenant = parseQuotaRules('TENANT_QUOTAS', 'tenant', read.env.TENANT_QUOTAS)
  const agent = parseQuotaRules('AGENT_QUOTAS', 'agent', read.env.AGENT_QUOTAS)
  for (const problem of [...tenant.problems, ...agent.problems]) read.refuse(problem)
  return {
    rules: policy.rules,
    // POLICY_DEFAULT and QUOTA_STORE outside their values were refused when parsed (config-variables.ts).
    defaultEffect: read.env.POLICY_DEFAULT,
    quotas: [...tenant.rules, ...agent.rules],
    quotaStore: read.env.QUOTA_STORE,
  }
}
