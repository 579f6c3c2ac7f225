/**
 * Test support: agents with pinned keys, and the challenge → token exchange driven through `app.inject()`.
 */
import { encodeBase64, generateSigningKey, type GeneratedSigningKey, signEcdsaP256, signEd25519 } from '@acdp/protocol'
import type { FastifyInstance } from 'fastify'

export interface TestAgent {
  did: string
  keyId: string
  key: GeneratedSigningKey
  /** The CONTROL_PLANE_PINNED_KEYS entry of this agent (optionally with options such as `:100..200`). */
  pinnedEntry(options?: string): string
  sign(message: string): string
}

export function createTestAgent(name: string, algorithm: 'ed25519' | 'ecdsa-p256' = 'ed25519'): TestAgent {
  const key = generateSigningKey(algorithm)
  const did = `did:web:${name}.agents.test`
  return {
    did,
    keyId: `${did}#key-1`,
    key,
    pinnedEntry: (options = '') =>
      `${did}=${Buffer.from(key.publicKey).toString('base64')}${algorithm === 'ecdsa-p256' ? ':ecdsa-p256' : ''}${options}`,
    sign(message) {
      const bytes = new TextEncoder().encode(message)
      return encodeBase64(
        algorithm === 'ed25519' ? signEd25519(key.privateKey, bytes) : signEcdsaP256(key.privateKey, bytes),
      )
    },
  }
}

/** POST /auth/challenge for the agent; returns the parsed answer. */
export async function requestChallenge(app: FastifyInstance, agent: TestAgent) {
  const res = await app.inject({ method: 'POST', url: '/auth/challenge', payload: { agent_id: agent.did } })
  if (res.statusCode !== 200) throw new Error(`challenge failed: ${res.statusCode} ${res.body}`)
  return res.json() as { nonce: string; registry_authority: string; expires_at: number; signing_input: string }
}

/** The /auth/token body for a challenge, signed by the agent; `overrides` replace members. */
export function tokenRequest(
  agent: TestAgent,
  challenge: { nonce: string; expires_at: number; signing_input: string },
  overrides: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    agent_id: agent.did,
    key_id: agent.keyId,
    nonce: challenge.nonce,
    expires_at: challenge.expires_at,
    algorithm: agent.key.algorithm,
    signature: agent.sign(challenge.signing_input),
    ...overrides,
  }
}

/** Challenge + exchange; returns the JWT. */
export async function issueToken(app: FastifyInstance, agent: TestAgent): Promise<string> {
  const challenge = await requestChallenge(app, agent)
  const res = await app.inject({ method: 'POST', url: '/auth/token', payload: tokenRequest(agent, challenge) })
  if (res.statusCode !== 200) throw new Error(`token failed: ${res.statusCode} ${res.body}`)
  return (res.json() as { token: string }).token
}
