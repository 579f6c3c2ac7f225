/**
 * Quota rules (product spec "Authentication" rule 10; the syntax of TENANT_QUOTAS and AGENT_QUOTAS):
 *
 *   TENANT_QUOTAS=acme:capability.declare=100/min,context.retrieve=20/sec;*:*=10000/hour
 *   AGENT_QUOTAS=did:web:bot.acme.example:capability.declare=5/min;*:capability.declare=60/hour
 *
 * Entries are `;`-separated `<subject>:<action>=<limit>/<sec|min|hour>[,…]`. The subject is a tenant id (or `*`,
 * every tenant, each counted separately) or an agent DID (or `*`); it ends at the last `:` before the first `=`,
 * so DIDs with colons work. Actions: capability.declare, context.retrieve, token.issue (POST /auth/token; the
 * tenant is the agent's TENANT_AGENTS tenant, else `default`), or `*` (every gated action, one shared counter). Windows are fixed and aligned to the epoch.
 */

export const QUOTA_ACTIONS = ['capability.declare', 'context.retrieve', 'token.issue'] as const
export type QuotaAction = (typeof QUOTA_ACTIONS)[number]

export interface QuotaRule {
  scope: 'tenant' | 'agent'
  /** Tenant id or agent DID; `*` = each subject on its own counter. */
  subject: string
  action: QuotaAction | '*'
  limit: number
  windowMs: number
}

const WINDOWS: Record<string, number> = { sec: 1000, min: 60_000, hour: 3_600_000 }

/** Parses one variable (TENANT_QUOTAS or AGENT_QUOTAS). Pure. */
export function parseQuotaRules(
  variable: string,
  scope: QuotaRule['scope'],
  text: string,
): { rules: QuotaRule[]; problems: string[] } {
  const rules: QuotaRule[] = []
  const problems: string[] = []
  const entries = text
    .split(';')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
  entries.forEach((entry, index) => {
    const label = `${variable} entry ${index + 1}`
    const equals = entry.indexOf('=')
    const colon = equals < 0 ? -1 : entry.lastIndexOf(':', equals)
    if (colon <= 0) {
      problems.push(`${label} must have the form <subject>:<action>=<limit>/<sec|min|hour>[,…]`)
      return
    }
    const subject = entry.slice(0, colon)
    if (scope === 'agent' && subject !== '*' && !/^did:[a-z0-9]+:\S+$/.test(subject)) {
      problems.push(`${label} subject must be an agent DID or *`)
    }
    if (scope === 'tenant' && subject !== '*' && !/^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/.test(subject)) {
      problems.push(`${label} subject must be a tenant id or *`)
    }
    for (const part of entry.slice(colon + 1).split(',')) {
      const match = /^([a-z.*]+)=(\d{1,9})\/(sec|min|hour)$/.exec(part.trim())
      const action = match?.[1]
      if (match === null || (action !== '*' && !QUOTA_ACTIONS.includes(action as QuotaAction))) {
        problems.push(`${label} has a malformed limit "${part.trim()}" (e.g. capability.declare=100/min)`)
        continue
      }
      const limit = Number(match[2])
      if (limit < 1) problems.push(`${label} limits must be at least 1`)
      rules.push({
        scope,
        subject,
        action: action as QuotaRule['action'],
        limit,
        windowMs: WINDOWS[match[3] ?? 'min'] ?? 60_000,
      })
    }
  })
  return { rules, problems }
}
