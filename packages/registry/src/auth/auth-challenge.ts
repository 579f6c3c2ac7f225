/**
 * Challenge-response over an agent's DID key (product spec "Authentication" 1; RFC-ACDP-0008 §6.2): POST
 * /auth/challenge hands out a single-use nonce bound to the agent and this registry; POST /auth/token exchanges
 * a signature over its signing input for a bearer JWT.
 *
 * Signing input: `acdp-registry-auth:v1:{nonce}:{agent_id}:{authority}:{expires_at}` (UTF-8), signed with a key
 * of the agent's DID that is in assertionMethod, under the algorithm the key is bound to. Ed25519 is verified
 * strictly (small-order keys and nonce points refused).
 *
 * A challenge is consumed before anything is verified: a failed attempt burns it, so a nonce can be tried once.
 * Failure classes (product spec behaviour 5): a transient DID fetch failure is 502 key_resolution_unreachable;
 * everything else — unknown, used or expired nonce, another agent's nonce, a bad signature, a key that is absent
 * or not authorized even after a fresh fetch, an SSRF refusal — is 403 not_authorized.
 */
import {
  decodeBase64Strict,
  isProtocolError,
  type ResolvedKey,
  splitKeyId,
  verifyEcdsaP256,
  verifyEd25519Async,
} from '@acdp/protocol'
import { challengeSigningInput } from '@acdp/service-kit'
import type { KeyResolver } from '../core/deps.js'
import { RegistryError } from '../core/errors.js'
import type { AuthStore } from './auth-store.js'
import type { RateBudget } from '../rate-limit/rate-budget.js'
import type { BearerTokens, IssuedToken } from './bearer-tokens.js'

const NONCE_BYTES = 24
const MAX_DID_BYTES = 2048

export interface AuthChallengeDeps {
  store: AuthStore
  resolver: KeyResolver
  tokens: BearerTokens
  /** `limits.challenge_rate_per_minute` per agent. */
  limiter: RateBudget
  clock: () => Date
  random: (size: number) => Uint8Array
  authority: string
  /** `auth.did_methods` (`did:web`, `did:key`). */
  didMethods: readonly string[]
  challengeTtlSeconds: number
  /** The `[[auth.tenant_agents]]` tenant of an agent: issued tokens carry it as their signed `tenant` claim. */
  tenantOf?: (agentId: string) => string | undefined
}

export interface IssuedChallenge {
  nonce: string
  registry_authority: string
  expires_at: string
  signing_input: string
}

export interface TokenRequest {
  agent_id: string
  key_id: string
  nonce: string
  expires_at: string
  algorithm: string
  signature: string
}

/** The signing input of a challenge, shared with the control plane (the kit's challengeSigningInput). */
export const authSigningInput = challengeSigningInput

/**
 * Issues and stores a challenge for `agentId`.
 *
 * @throws RegistryError not_authorized (DID of an unaccepted method or size), rate_limited (per-agent budget).
 */
export async function issueChallenge(deps: AuthChallengeDeps, agentId: string): Promise<IssuedChallenge> {
  if (!isAcceptedAgentDid(agentId, deps.didMethods)) {
    throw new RegistryError('not_authorized', 'The agent_id is not a DID this registry authenticates.')
  }
  const nowMs = deps.clock().getTime()
  const wait = await deps.limiter.take(agentId, nowMs)
  if (wait > 0) {
    throw new RegistryError('rate_limited', 'Too many challenges for this agent; retry later.', {
      retryAfterSeconds: wait,
    })
  }
  const nonce = Buffer.from(deps.random(NONCE_BYTES)).toString('base64url')
  const expiresAtMs = nowMs - (nowMs % 1000) + deps.challengeTtlSeconds * 1000
  const expiresAt = new Date(expiresAtMs).toISOString().replace('.000Z', 'Z')
  await deps.store.saveChallenge({ nonce, agentId, expiresAt, expiresAtMs })
  return {
    nonce,
    registry_authority: deps.authority,
    expires_at: expiresAt,
    signing_input: authSigningInput(nonce, agentId, deps.authority, expiresAt),
  }
}

/**
 * Redeems a challenge: consumes the nonce, checks it belongs to this agent and is live, verifies the signature
 * under the agent's DID key and mints a token.
 *
 * @throws RegistryError not_authorized | key_resolution_unreachable
 */
export async function exchangeChallenge(deps: AuthChallengeDeps, request: TokenRequest): Promise<IssuedToken> {
  const challenge = await deps.store.takeChallenge(request.nonce)
  const nowMs = deps.clock().getTime()
  if (
    challenge === undefined ||
    challenge.agentId !== request.agent_id ||
    challenge.expiresAt !== request.expires_at ||
    nowMs > challenge.expiresAtMs
  ) {
    throw refused('The challenge is unknown, already used, expired or issued to another agent.')
  }
  let keyDid: string
  try {
    keyDid = splitKeyId(request.key_id).did
  } catch (error) {
    throw refused('The key_id is not a DID URL.', error)
  }
  if (keyDid !== request.agent_id) throw refused('The key_id does not belong to agent_id.')
  const message = new TextEncoder().encode(
    authSigningInput(challenge.nonce, challenge.agentId, deps.authority, challenge.expiresAt),
  )
  let signature: Uint8Array
  try {
    signature = decodeBase64Strict(request.signature)
  } catch (error) {
    throw refused('The signature is not base64.', error)
  }
  const verified =
    (await verifyWith(deps.resolver, request, message, signature, false)) ||
    // A did:web key may have rotated since the cached document: one fresh fetch (rate-limited per DID).
    (request.key_id.startsWith('did:web:') && (await verifyWith(deps.resolver, request, message, signature, true)))
  if (!verified) throw refused('The challenge signature does not verify under the agent key.')
  return deps.tokens.issue(request.agent_id, request.key_id, deps.tenantOf?.(request.agent_id))
}

/** True when the signature verifies; false for a permanent key or signature failure; throws 502 on transient. */
async function verifyWith(
  resolver: KeyResolver,
  request: TokenRequest,
  message: Uint8Array,
  signature: Uint8Array,
  forceRefresh: boolean,
): Promise<boolean> {
  let key: ResolvedKey
  try {
    key = await resolver.resolveKey(request.key_id, { forceRefresh })
  } catch (error) {
    if (isProtocolError(error) && error.code === 'key_resolution_unreachable') {
      throw new RegistryError('key_resolution_unreachable', 'The DID document could not be fetched; retry later.', {
        details: { key_id: request.key_id },
        cause: error,
      })
    }
    if (isProtocolError(error)) return false
    throw error
  }
  // Algorithm binding (RFC-ACDP-0008 §3.9): the key decides the algorithm, never the request.
  if (key.algorithm !== request.algorithm || signature.byteLength !== 64) return false
  return key.algorithm === 'ed25519'
    ? verifyEd25519Async(key.publicKey, message, signature)
    : verifyEcdsaP256(key.publicKey, message, signature)
}

function isAcceptedAgentDid(agentId: string, didMethods: readonly string[]): boolean {
  if (Buffer.byteLength(agentId, 'utf8') > MAX_DID_BYTES) return false
  return didMethods.some((method) => agentId.startsWith(`${method}:`) && agentId.length > method.length + 1)
}

function refused(message: string, cause?: unknown): RegistryError {
  return new RegistryError('not_authorized', message, cause === undefined ? {} : { cause })
}
