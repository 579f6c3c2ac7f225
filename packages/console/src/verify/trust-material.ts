/**
 * What the browser needs beside a context to verify its evidence, relayed (unverified) by the control plane from the
 * context's registry: its DID document, the context's log evidence, its advertised profiles. What cannot be had is
 * left out, with why; verification then marks the stages resting on it "not available".
 */
import { type ApiClient, ApiError } from '../api/client.js'
import type { LogEvidence, RegistryCapabilities, RegistryDidDocument } from '../api/types.js'
import type { RegistryTrustMaterial } from './inspect-context.js'

/** The registry's relayed DID document and log evidence for `ctxId`; what cannot be had is left out, with why. */
export async function trustMaterial(client: ApiClient, ctxId: string): Promise<RegistryTrustMaterial> {
  const authority = /^acdp:\/\/([^/]+)\//.exec(ctxId)?.[1]
  if (authority === undefined) return { now: new Date(), didDocumentProblem: 'the ctx_id names no registry' }
  const base = `/registries/${encodeURIComponent(authority)}`
  const [didDocument, logEvidence, capabilities] = await Promise.allSettled([
    client.get<RegistryDidDocument>(`${base}/did-document`),
    client.get<LogEvidence>(`${base}/log-evidence`, { ctxId }),
    client.get<RegistryCapabilities>(`${base}/capabilities`),
  ])
  return {
    now: new Date(),
    registryProfiles:
      capabilities.status === 'fulfilled'
        ? { known: true, profiles: capabilities.value.profiles }
        : { known: false, reason: `the registry's capabilities are not available (${describe(capabilities.reason)})` },
    ...(didDocument.status === 'fulfilled'
      ? { didDocument: didDocument.value }
      : { didDocumentProblem: `the registry's DID document is not available (${describe(didDocument.reason)})` }),
    ...(logEvidence.status === 'fulfilled' ? { logEvidence: logEvidence.value } : {}),
  }
}

function describe(error: unknown): string {
  return error instanceof ApiError ? error.errorCode : String(error)
}
