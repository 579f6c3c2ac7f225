/**
 * Verifies an agent's signature with its pinned key (used by /auth/token and POST /capabilities): the request's
 * `algorithm` must be a supported one (else 400) and equal the pinned key's (downgrade defense), the key id must
 * name the agent, and the signature must verify strictly (the protocol library's Ed25519 / P-256 checks).
 */
import { decodeBase64Strict, verifyEcdsaP256, verifyEd25519Async } from '@acdp/protocol'
import type { PinnedAlgorithm, PinnedKeyDirectory } from './pinned-keys.js'

/** Why an agent signature was refused (logged, never sent: errors do not say which check failed). */
export type AgentSignatureRefusal =
  'unsupported_algorithm' | 'key_id_mismatch' | 'unpinned' | 'algorithm_mismatch' | 'bad_signature'

export function isPinnedAlgorithm(value: string): value is PinnedAlgorithm {
  return value === 'ed25519' || value === 'ecdsa-p256'
}

/**
 * @param keyId `<agent_did>#<fragment>`, or a bare fragment when `allowBareFragment`.
 * @returns undefined when the signature verifies, else the refusal reason.
 */
export async function checkAgentSignature(input: {
  pinned: PinnedKeyDirectory
  agentDid: string
  keyId: string
  algorithm: string
  signature: string
  message: string
  nowSeconds: number
  allowBareFragment: boolean
}): Promise<AgentSignatureRefusal | undefined> {
  if (!isPinnedAlgorithm(input.algorithm)) return 'unsupported_algorithm'
  const hash = input.keyId.indexOf('#')
  const keyDid = hash < 0 ? undefined : input.keyId.slice(0, hash)
  const fragment = hash < 0 ? input.keyId : input.keyId.slice(hash + 1)
  if (!/^[A-Za-z0-9._~-]{1,128}$/.test(fragment)) return 'key_id_mismatch'
  if (keyDid === undefined ? !input.allowBareFragment : keyDid !== input.agentDid) return 'key_id_mismatch'
  const key = input.pinned.find(input.agentDid, input.nowSeconds)
  if (key === undefined) return 'unpinned'
  if (key.algorithm !== input.algorithm) return 'algorithm_mismatch'
  let signature: Uint8Array
  try {
    signature = decodeBase64Strict(input.signature)
  } catch {
    return 'bad_signature'
  }
  const message = new TextEncoder().encode(input.message)
  const valid =
    key.algorithm === 'ed25519'
      ? await verifyEd25519Async(key.publicKey, message, signature)
      : verifyEcdsaP256(key.publicKey, message, signature)
  return valid ? undefined : 'bad_signature'
}
