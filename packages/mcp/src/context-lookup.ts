/**
 * get_context, verify_context and the `acdp://` resource: a context retrieved from the registry of its own
 * authority and, when asked, checked by the same pipeline as `acdp get --verify` (the body stages, then the
 * registry's receipt, log inclusion, witness cosignatures, the producer's key revocations and the DataRefs), with
 * every stage reported verified / failed / not available / not checked and why.
 */
import {
  authorityOfCtxId,
  createRegistryJsonReader,
  type EvidenceRequirement,
  fetchContext,
  verifyWithEvidence,
} from '@acdp/protocol'
import type { StackAccess } from './stack-access.js'
import { ToolError } from './tool-result.js'

export interface LookupOptions {
  verify: boolean
  require?: EvidenceRequirement
  trustedWitnesses?: readonly string[]
}

/** `{ context }`, or `{ context, verification: { ok, summary, stages, checks, unchecked, notes, … } }`. */
export async function lookUpContext(
  access: StackAccess,
  ctxId: string,
  options: LookupOptions,
  signal: AbortSignal,
): Promise<Record<string, unknown>> {
  const authority = authorityOfCtxId(ctxId)
  if (authority === undefined) throw new ToolError('invalid_ctx_id', `expected acdp://<authority>/<id>, got "${ctxId}"`)
  const own = await access.registryAuthority(signal)
  const registryUrl = access.registryUrlOf(authority, own)
  const { envelope } = await fetchContext(registryUrl, ctxId, { fetch: access.fetch, signal })
  if (!options.verify) return { context: envelope }
  const read = createRegistryJsonReader({ fetch: access.fetch, signal })
  const resolver = access.resolver(registryUrl === access.registryUrl ? authority : undefined)
  const { report, notes } = await verifyWithEvidence(read, registryUrl, envelope, {
    resolver,
    trustedWitnesses: options.trustedWitnesses ?? [],
    ...(options.require === undefined ? {} : { require: options.require }),
  })
  return { context: envelope, verification: { ...report, notes } }
}
