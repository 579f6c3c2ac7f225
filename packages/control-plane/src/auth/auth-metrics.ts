/**
 * Metrics of token auth, the gates and the federation proxy, registered on the instance's registry next to the
 * core metrics (metrics.ts). Every label value comes from a closed set written in this codebase, never from the
 * wire, so the exposition stays bounded.
 *
 * - `acdp_token_requests_total{result}`: `issued`, or the refusal (`reject_nonce`, `reject_signature`, …).
 * - `acdp_token_revocations_total{source}`: `local` (POST /auth/token/revoke) or `feed`.
 * - `acdp_policy_denials_total{action}` and `acdp_quota_exceeded_total{action}`.
 * - `acdp_federation_requests_total{outcome}`: `relayed_2xx`, `relayed_4xx`, `rate_limited`, `not_found`,
 *   `invalid_ctx_id`, `upstream_error`, `binding_refused`.
 */
import { Counter, type Registry } from 'prom-client'

export interface AuthMetrics {
  tokenRequests: Counter<'result'>
  tokenRevocations: Counter<'source'>
  policyDenials: Counter<'action'>
  quotaExceeded: Counter<'action'>
  federationRequests: Counter<'outcome'>
}

export function createAuthMetrics(registry: Registry): AuthMetrics {
  const counter = <L extends string>(name: string, help: string, label: L): Counter<L> =>
    (registry.getSingleMetric(name) as Counter<L> | undefined) ??
    new Counter({ name, help, labelNames: [label], registers: [registry] })
  return {
    tokenRequests: counter('acdp_token_requests_total', 'POST /auth/token outcomes.', 'result'),
    tokenRevocations: counter('acdp_token_revocations_total', 'Tokens added to the deny list, by source.', 'source'),
    policyDenials: counter('acdp_policy_denials_total', 'Requests denied by the policy engine, by action.', 'action'),
    quotaExceeded: counter('acdp_quota_exceeded_total', 'Requests refused by a quota, by action.', 'action'),
    federationRequests: counter('acdp_federation_requests_total', 'Federation proxy outcomes.', 'outcome'),
  }
}
