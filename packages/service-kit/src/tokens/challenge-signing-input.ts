/**
 * The bytes an agent signs to redeem an authentication challenge at either server (product spec "Auth endpoints";
 * RFC-ACDP-0008 §6.2): `acdp-registry-auth:v1:{nonce}:{agent_did}:{authority}:{expires_at}`. The registry's
 * `expires_at` is an RFC 3339 string and the control plane's epoch seconds; each is signed as it is sent.
 */
export function challengeSigningInput(
  nonce: string,
  agentDid: string,
  authority: string,
  expiresAt: string | number,
): string {
  return `acdp-registry-auth:v1:${nonce}:${agentDid}:${authority}:${expiresAt}`
}
