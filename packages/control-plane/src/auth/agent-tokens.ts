/**
 * The agent token flow (product spec "Auth endpoints", "Authentication" rule 7): a single-use challenge nonce,
 * signed by the agent's pinned key over `acdp-registry-auth:v1:<nonce>:<agent_did>:<authority>:<expires_at>`,
 * exchanged for a short-lived JWT.
 *
 * The nonce is consumed (deleted) before any other check, so a failed exchange burns it: a signature can never be
 * retried against the same nonce. Only an unsupported algorithm is refused first (400), since that is a client
 * bug, not an attempt.
 */
import { challengeSigningInput } from '@acdp/service-kit'
import type { PinnedKeyDirectory } from './pinned-keys.js'
import type { JwtSigner } from './jwt-signer.js'
import type { TokenConfig } from './token-settings.js'
import { ControlPlaneError } from '../core/errors.js'
import type { ControlPlaneAuthStore } from './auth-store.js'
import { checkAgentSignature, isPinnedAlgorithm } from './agent-signature.js'

export interface ChallengeResponse {
  nonce: string
  registry_authority: string
  expires_at: number
  signing_input: string
}

export interface AgentTokenRequest {
  agent_id: string
  key_id: string
  nonce: string
  expires_at: number
  algorithm: string
  signature: string
}

export interface TokenResponse {
  token: string
  token_type: 'Bearer'
  expires_at: number
}

export interface AgentTokenDeps {
  tokens: TokenConfig
  authStore: ControlPlaneAuthStore
  pinned: PinnedKeyDirectory
  signer: JwtSigner
  clock: () => Date
  random: (size: number) => Uint8Array
  log?: { info(object: unknown, message?: string): void }
  /** Counts each outcome: `issued` or the refusal reason. */
  onOutcome?: (result: string) => void
}

export async function issueChallenge(deps: AgentTokenDeps, agentId: string): Promise<ChallengeResponse> {
  const now = deps.clock().getTime()
  const nonce = Buffer.from(deps.random(32)).toString('base64url')
  const expiresAt = Math.floor(now / 1000) + deps.tokens.challengeTtlSeconds
  const authority = deps.tokens.authority
  await deps.authStore.insertChallenge({
    nonce,
    agentDid: agentId,
    registryAuthority: authority,
    expiresAt,
    createdAt: now,
  })
  return {
    nonce,
    registry_authority: authority,
    expires_at: expiresAt,
    signing_input: challengeSigningInput(nonce, agentId, authority, expiresAt),
  }
}

/**
 * Exchanges a signed challenge for a JWT.
 *
 * @throws ControlPlaneError VALIDATION_ERROR (400) for an unsupported algorithm; UNAUTHORIZED (401) for an unknown,
 *   used or expired nonce, an agent or expiry mismatch, a key id not naming the agent, no pinned key, an algorithm
 *   other than the pinned key's, or a bad signature. The 401 message is the same for all.
 */
export async function exchangeToken(deps: AgentTokenDeps, request: AgentTokenRequest): Promise<TokenResponse> {
  if (!isPinnedAlgorithm(request.algorithm)) {
    deps.onOutcome?.('reject_alg')
    throw new ControlPlaneError('VALIDATION_ERROR', 'algorithm must be ed25519 or ecdsa-p256')
  }
  const now = deps.clock().getTime()
  const nowSeconds = Math.floor(now / 1000)
  const refuse = (reason: string): never => {
    deps.log?.info({ reason, agent: request.agent_id }, 'token request refused')
    deps.onOutcome?.(reason)
    throw new ControlPlaneError('UNAUTHORIZED', 'token request refused')
  }
  const challenge = await deps.authStore.consumeChallenge(request.nonce)
  if (challenge === undefined) return refuse('reject_nonce')
  if (challenge.expiresAt <= nowSeconds) return refuse('reject_nonce_expired')
  if (challenge.agentDid !== request.agent_id) return refuse('reject_agent_mismatch')
  if (challenge.expiresAt !== request.expires_at) return refuse('reject_expires_mismatch')
  const refusal = await checkAgentSignature({
    pinned: deps.pinned,
    agentDid: request.agent_id,
    keyId: request.key_id,
    algorithm: request.algorithm,
    signature: request.signature,
    message: challengeSigningInput(
      challenge.nonce,
      challenge.agentDid,
      challenge.registryAuthority,
      challenge.expiresAt,
    ),
    nowSeconds,
    allowBareFragment: true,
  })
  if (refusal !== undefined) return refuse(`reject_${refusal}`)

  const tenant = deps.tokens.tenantAgents.find((entry) => entry.agentDid === request.agent_id)?.tenantId
  const keyId = request.key_id.includes('#') ? request.key_id : `${request.agent_id}#${request.key_id}`
  const exp = nowSeconds + deps.tokens.ttlSeconds
  const token = await deps.signer.sign({
    iss: deps.tokens.authority,
    sub: request.agent_id,
    aud: deps.tokens.audience,
    jti: Buffer.from(deps.random(12)).toString('base64url'),
    iat: nowSeconds,
    nbf: nowSeconds,
    exp,
    acdp: { registry: challenge.registryAuthority, key_id: keyId },
    ...(tenant === undefined ? {} : { tenant }),
  })
  deps.onOutcome?.('issued')
  return { token, token_type: 'Bearer', expires_at: exp }
}
