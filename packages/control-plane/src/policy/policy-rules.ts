/**
 * The policy engine of the gated actions (product spec "Authentication" rule 10):
 * `context.retrieve` (GET /contexts/*ctxId) and `capability.declare` (POST /capabilities).
 *
 * Rules come from POLICY_RULES, a JSON array evaluated in order; the first rule that matches decides, and when none
 * matches POLICY_DEFAULT (allow) decides. A rule matches when every condition it states holds:
 *
 *   { "action": "context.retrieve" | "capability.declare" | "*",
 *     "effect": "allow" | "deny",
 *     "tenants":     ["acme", …],               // the caller's resolved tenant
 *     "subjects":    ["did:web:*.acme.example"], // JWT subject (agent DID) or API-key actor id; `*` globs
 *     "credentials": ["jwt" | "api_key"],        // how the caller authenticated
 *     "resources":   ["acdp://reg.acme.example/*", "urn:acdp:cap:read:*"], // ctx_id or capability URI
 *     "code": "registry_blocked", "reason": "human readable" }  // what a deny answers
 *
 * A deny is 403 `{ statusCode, errorCode: "POLICY_DENIED", message: "policy denied", code, reason }`.
 * Evaluation is pure and in memory: no cache is needed and no decision is ever indeterminate.
 */

export const POLICY_ACTIONS = ['context.retrieve', 'capability.declare'] as const
export type PolicyAction = (typeof POLICY_ACTIONS)[number]

export interface PolicyRule {
  action: PolicyAction | '*'
  effect: 'allow' | 'deny'
  tenants: readonly string[] | undefined
  subjects: readonly string[] | undefined
  credentials: readonly ('jwt' | 'api_key')[] | undefined
  resources: readonly string[] | undefined
  code: string
  reason: string
}

/** What a decision looks at. */
export interface PolicyRequest {
  action: PolicyAction
  tenantId: string
  /** JWT subject, else the credential's actor id. */
  subject: string
  credential: 'jwt' | 'api_key' | 'development'
  /** ctx_id or capability URI. */
  resource: string
}

export type PolicyDecision = { allow: true } | { allow: false; code: string; reason: string }

/**
 * Parses POLICY_RULES. Pure.
 *
 * @returns the rules, or the problems (one line each) that refuse the variable.
 */
export function parsePolicyRules(text: string): { rules: PolicyRule[]; problems: string[] } {
  if (text.trim() === '') return { rules: [], problems: [] }
  let parsed: unknown
  try {
    parsed = JSON.parse(text)
  } catch {
    return { rules: [], problems: ['POLICY_RULES must be a JSON array of rules'] }
  }
  if (!Array.isArray(parsed)) return { rules: [], problems: ['POLICY_RULES must be a JSON array of rules'] }
  const rules: PolicyRule[] = []
  const problems: string[] = []
  parsed.forEach((raw: unknown, index) => {
    const label = `POLICY_RULES rule ${index + 1}`
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
      problems.push(`${label} must be an object`)
      return
    }
    const rule = raw as Record<string, unknown>
    const known = new Set(['action', 'effect', 'tenants', 'subjects', 'credentials', 'resources', 'code', 'reason'])
    const unknown = Object.keys(rule).filter((key) => !known.has(key))
    if (unknown.length > 0) problems.push(`${label} has unknown members: ${unknown.join(', ')}`)
    const action = rule['action']
    if (action !== '*' && !POLICY_ACTIONS.includes(action as PolicyAction)) {
      problems.push(`${label} action must be one of ${POLICY_ACTIONS.join(', ')} or *`)
    }
    const effect = rule['effect']
    if (effect !== 'allow' && effect !== 'deny') problems.push(`${label} effect must be allow or deny`)
    const list = (name: string): string[] | undefined => {
      const value = rule[name]
      if (value === undefined) return undefined
      if (!Array.isArray(value) || value.some((item) => typeof item !== 'string' || item === '')) {
        problems.push(`${label} ${name} must be an array of non-empty strings`)
        return undefined
      }
      return value as string[]
    }
    const credentials = list('credentials')
    if (credentials?.some((item) => item !== 'jwt' && item !== 'api_key')) {
      problems.push(`${label} credentials may only hold jwt and api_key`)
    }
    const code = rule['code'] ?? (effect === 'deny' ? 'denied_by_rule' : 'allowed_by_rule')
    const reason = rule['reason'] ?? `${label} denies this action`
    if (typeof code !== 'string' || !/^[a-z][a-z0-9_]{0,63}$/.test(code))
      problems.push(`${label} code must be snake_case`)
    if (typeof reason !== 'string' || reason.length > 500) problems.push(`${label} reason must be a string (≤ 500)`)
    rules.push({
      action: action as PolicyRule['action'],
      effect: effect as PolicyRule['effect'],
      tenants: list('tenants'),
      subjects: list('subjects'),
      credentials: credentials as PolicyRule['credentials'],
      resources: list('resources'),
      code: String(code),
      reason: String(reason),
    })
  })
  return { rules, problems }
}

/** Decides `request` under `rules`; `defaultEffect` applies when no rule matches. */
export function decide(
  rules: readonly PolicyRule[],
  defaultEffect: 'allow' | 'deny',
  request: PolicyRequest,
): PolicyDecision {
  for (const rule of rules) {
    if (!matches(rule, request)) continue
    return rule.effect === 'allow' ? { allow: true } : { allow: false, code: rule.code, reason: rule.reason }
  }
  return defaultEffect === 'allow'
    ? { allow: true }
    : { allow: false, code: 'default_deny', reason: 'no policy rule allows this action' }
}

function matches(rule: PolicyRule, request: PolicyRequest): boolean {
  if (rule.action !== '*' && rule.action !== request.action) return false
  if (rule.tenants !== undefined && !rule.tenants.includes(request.tenantId)) return false
  if (rule.credentials !== undefined && !rule.credentials.some((kind) => kind === request.credential)) return false
  if (rule.subjects !== undefined && !rule.subjects.some((pattern) => globMatch(pattern, request.subject))) return false
  if (rule.resources !== undefined && !rule.resources.some((pattern) => globMatch(pattern, request.resource))) {
    return false
  }
  return true
}

/** `*` matches any run of characters (including none); everything else is literal. */
export function globMatch(pattern: string, value: string): boolean {
  const parts = pattern.split('*')
  if (parts.length === 1) return pattern === value
  const first = parts[0] ?? ''
  const last = parts[parts.length - 1] ?? ''
  if (!value.startsWith(first) || value.length < first.length + last.length || !value.endsWith(last)) return false
  let position = first.length
  for (const middle of parts.slice(1, -1)) {
    const found = value.indexOf(middle, position)
    if (found < 0 || found + middle.length > value.length - last.length) return false
    position = found + middle.length
  }
  return true
}
