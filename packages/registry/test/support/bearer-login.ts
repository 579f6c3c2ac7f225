/**
 * Test client side of the registry's challenge-response login: asks for a challenge, signs its signing input
 * with the producer's key, redeems it for a bearer JWT.
 */
import { encodeBase64, signEcdsaP256, signEd25519 } from '@acdp/protocol'
import type { FastifyInstance } from 'fastify'
import type { Producer } from './registry-harness.js'

export function postJson(app: FastifyInstance, url: string, body: unknown, headers: Record<string, string> = {}) {
  return app.inject({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/json', ...headers },
    payload: typeof body === 'string' ? body : JSON.stringify(body),
  })
}

export interface Challenge {
  nonce: string
  registry_authority: string
  expires_at: string
  signing_input: string
}

export async function requestChallenge(app: FastifyInstance, agentId: string): Promise<Challenge> {
  const res = await postJson(app, '/auth/challenge', { agent_id: agentId })
  if (res.statusCode !== 200) throw new Error(`challenge refused: ${res.statusCode} ${res.body}`)
  return res.json() as Challenge
}

/** The POST /auth/token body answering `challenge` with `signer`'s key (default: the producer itself). */
export function tokenRequestFor(producer: Producer, challenge: Challenge, signer: Producer = producer) {
  const message = new TextEncoder().encode(challenge.signing_input)
  const signature =
    signer.algorithm === 'ed25519' ? signEd25519(signer.privateKey, message) : signEcdsaP256(signer.privateKey, message)
  return {
    agent_id: producer.did,
    key_id: producer.keyId,
    nonce: challenge.nonce,
    expires_at: challenge.expires_at,
    algorithm: producer.algorithm,
    signature: encodeBase64(signature),
  }
}

/** A bearer token for `producer`. */
export async function login(app: FastifyInstance, producer: Producer): Promise<string> {
  const challenge = await requestChallenge(app, producer.did)
  const res = await postJson(app, '/auth/token', tokenRequestFor(producer, challenge))
  if (res.statusCode !== 200) throw new Error(`token refused: ${res.statusCode} ${res.body}`)
  return (res.json() as { token: string }).token
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` })
