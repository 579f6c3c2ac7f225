/**
 * RFC-ACDP-0014 §8 discovery for the evidence pipeline (`acdp get --verify`, the MCP server): the producer's `key-revocation` contexts on the registry
 * being asked (`GET /contexts/search?type=key-revocation&agent_id=<producer>`), each fetched in full and
 * verified like any context (§5: producer-signed, schema, hash, signature, not signed by the key it revokes)
 * before it may fail anything. Honest scope (§8): a registry can hide a revocation; absence proves nothing.
 */
import { isProtocolError } from '../errors.js'
import { registryDidForAuthority } from '../receipt/registry-binding.js'
import {
  assertRevocationNotSelfSigned,
  type KeyRevocation,
  type KeyRevocationBody,
  parseKeyRevocation,
} from '../revocation/key-revocation.js'
import type { RegistryJsonReader } from './registry-json.js'
import { type KeyResolver, verifyContext } from './verify-context.js'

/** At most this many revocation contexts are examined per producer (a producer has a handful). */
const MAX_REVOCATIONS = 50

export interface RevocationLookup {
  /** Verified revocations (undefined when the registry offers no search: the stage is then not run). */
  revocations: KeyRevocation[] | undefined
  /** One line for the report: how many were found, verified, discarded, or why none were looked up. */
  note: string
}

export async function findProducerRevocations(
  read: RegistryJsonReader,
  registryUrl: string,
  agentId: string,
  registryAuthority: string | undefined,
  resolver: KeyResolver,
): Promise<RevocationLookup> {
  // Producer-signed revocations, then registry-attested ones (signed by this registry, naming the producer).
  const signers = [agentId, ...(registryAuthority === undefined ? [] : [registryDidForAuthority(registryAuthority)])]
  const ids: string[] = []
  for (const signer of signers) {
    const query = `/contexts/search?type=key-revocation&agent_id=${encodeURIComponent(signer)}&limit=${MAX_REVOCATIONS}`
    const answer = await read(registryUrl, query)
    if (answer.status !== 200) {
      return { revocations: undefined, note: `revocations not looked up (search answered ${answer.status})` }
    }
    const matches = (answer.body as { matches?: unknown })?.matches
    if (!Array.isArray(matches)) continue
    for (const match of matches) {
      const id = (match as { ctx_id?: unknown })?.ctx_id
      if (typeof id === 'string' && ids.length < MAX_REVOCATIONS) ids.push(id)
    }
  }
  const revocations: KeyRevocation[] = []
  let discarded = 0
  for (const id of ids) {
    const revocation = await verifiedRevocation(read, registryUrl, id, registryAuthority, resolver)
    if (revocation === undefined) discarded++
    else if (revocation.controller === agentId) revocations.push(revocation)
  }
  const note =
    `${revocations.length} verified key revocation(s) by ${agentId} on this registry` +
    (discarded > 0 ? `, ${discarded} discarded as unverifiable` : '')
  return { revocations, note }
}

async function verifiedRevocation(
  read: RegistryJsonReader,
  registryUrl: string,
  ctxId: string,
  registryAuthority: string | undefined,
  resolver: KeyResolver,
): Promise<KeyRevocation | undefined> {
  const answer = await read(registryUrl, `/contexts/${encodeURIComponent(ctxId)}`)
  if (answer.status !== 200 || typeof answer.body !== 'object' || answer.body === null) return undefined
  const envelope = answer.body as Record<string, unknown>
  const report = await verifyContext(envelope, { resolver })
  if (!report.ok) return undefined
  const body = envelope['body'] as Record<string, unknown> & { signature: { key_id: string } }
  try {
    const revocation = parseKeyRevocation(body as KeyRevocationBody, {
      ...(registryAuthority === undefined ? {} : { registryDid: registryDidForAuthority(registryAuthority) }),
    })
    assertRevocationNotSelfSigned(revocation, await resolver.resolveKey(body.signature.key_id))
    return revocation
  } catch (error) {
    if (isProtocolError(error)) return undefined
    throw error
  }
}
