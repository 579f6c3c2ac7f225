/**
 * The reasons a bearer token may be revoked for, the same on the registry and the control plane (product spec
 * registry.md "Authentication" and control-plane.md "Auth endpoints"): the `reason` member of a revoke request
 * and of the stored revocation.
 */
export const TOKEN_REVOKE_REASONS = [
  'user_logout',
  'admin_revoke',
  'key_rotation',
  'security_incident',
  'unspecified',
] as const
export type TokenRevokeReason = (typeof TOKEN_REVOKE_REASONS)[number]
