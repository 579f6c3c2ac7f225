/**
 * The policy gate of a request: builds the decision input from the authenticated principal and refuses with
 * 403 `{ statusCode, errorCode: "POLICY_DENIED", message: "policy denied", code, reason }` (product spec rule 10).
 */
import type { Principal } from '../auth/credentials.js'
import { ControlPlaneError } from '../core/errors.js'
import { decide, type PolicyAction } from './policy-rules.js'
import type { PolicyConfig } from './policy-settings.js'

export interface PolicyGate {
  /** @throws ControlPlaneError POLICY_DENIED when the rules deny the action. */
  enforce(action: PolicyAction, principal: Principal, tenantId: string, resource: string): void
}

export function createPolicyGate(policy: PolicyConfig, onDenied?: (action: PolicyAction) => void): PolicyGate {
  return {
    enforce(action, principal, tenantId, resource) {
      const decision = decide(policy.rules, policy.defaultEffect, {
        action,
        tenantId,
        subject: principal.subject ?? principal.actorId,
        credential: principal.kind,
        resource,
      })
      if (!decision.allow) {
        onDenied?.(action)
        throw new ControlPlaneError('POLICY_DENIED', 'policy denied', {
          extra: { code: decision.code, reason: decision.reason },
        })
      }
    },
  }
}
