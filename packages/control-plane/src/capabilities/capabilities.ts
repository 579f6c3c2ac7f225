/**
 * Signed capability declarations (product spec "Capabilities"). POST /capabilities applies the five rules in
 * order: the URN grammar, the ±300 s clock window on declared_at, the algorithm pinned for the agent (downgrade
 * defense), the signature over `acdp-cap:v1:<agent_did>:<capability_uri>:<declared_at>` with the pinned key, and
 * idempotent persistence on (tenant, agent, URI), where a re-declaration returns the original declared_at.
 */
import type { PinnedKeyDirectory } from '../auth/pinned-keys.js'
import { ControlPlaneError } from '../core/errors.js'
import type { ControlPlaneAuthStore, CapabilityRecord } from '../auth/auth-store.js'
import { checkAgentSignature } from '../auth/agent-signature.js'

/** `urn:acdp:cap:<verb>:<type>:<domain>`, each segment `[a-z0-9_]+`. */
export const CAPABILITY_URI_PATTERN = '^urn:acdp:cap:[a-z0-9_]+:[a-z0-9_]+:[a-z0-9_]+$'
const CAPABILITY_URI = new RegExp(CAPABILITY_URI_PATTERN)
/** ISO 8601 / RFC 3339 date-time with an explicit offset. */
const DECLARED_AT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/
/** Rule 2: the declaration must be fresh. */
export const CAPABILITY_SKEW_SECONDS = 300
/** Most capabilities one list answer carries. */
export const CAPABILITY_LIST_LIMIT = 500

export interface CapabilityDeclaration {
  agent_did: string
  capability_uri: string
  declared_at: string
  key_id: string
  algorithm: string
  signature: string
}

export interface CapabilityView {
  agent_did: string
  capability_uri: string
  declared_at: string
  signed_by: string
}

export interface CapabilityDeps {
  authStore: ControlPlaneAuthStore
  pinned: PinnedKeyDirectory
  clock: () => Date
}

/** The signed string of a declaration. */
export function capabilitySigningInput(agentDid: string, capabilityUri: string, declaredAt: string): string {
  return `acdp-cap:v1:${agentDid}:${capabilityUri}:${declaredAt}`
}

/**
 * Declares a capability in `tenantId`.
 *
 * @returns the stored declaration and whether this call created it.
 * @throws ControlPlaneError VALIDATION_ERROR (400) for a malformed URI, a declared_at outside ±300 s or an
 *   unsupported algorithm; INVALID_SIGNATURE (401) when the key id does not name the agent, no key is pinned
 *   for it, the algorithm is not the pinned key's, or the signature does not verify.
 */
export async function declareCapability(
  deps: CapabilityDeps,
  tenantId: string,
  declaration: CapabilityDeclaration,
): Promise<{ capability: CapabilityView; created: boolean }> {
  assertCapabilityUri(declaration.capability_uri)
  const now = deps.clock().getTime()
  const declaredMs = DECLARED_AT.test(declaration.declared_at) ? Date.parse(declaration.declared_at) : Number.NaN
  if (Number.isNaN(declaredMs)) {
    throw new ControlPlaneError('VALIDATION_ERROR', 'declared_at must be an ISO 8601 date-time with a time zone')
  }
  if (Math.abs(declaredMs - now) > CAPABILITY_SKEW_SECONDS * 1000) {
    throw new ControlPlaneError(
      'VALIDATION_ERROR',
      `declared_at must lie within ±${CAPABILITY_SKEW_SECONDS} s of server time`,
    )
  }
  const refusal = await checkAgentSignature({
    pinned: deps.pinned,
    agentDid: declaration.agent_did,
    keyId: declaration.key_id,
    algorithm: declaration.algorithm,
    signature: declaration.signature,
    message: capabilitySigningInput(declaration.agent_did, declaration.capability_uri, declaration.declared_at),
    nowSeconds: Math.floor(now / 1000),
    allowBareFragment: false,
  })
  if (refusal === 'unsupported_algorithm') {
    throw new ControlPlaneError('VALIDATION_ERROR', 'algorithm must be ed25519 or ecdsa-p256')
  }
  if (refusal !== undefined)
    throw new ControlPlaneError('INVALID_SIGNATURE', 'the capability signature does not verify')
  const { record, created } = await deps.authStore.declareCapability({
    tenantId,
    agentDid: declaration.agent_did,
    capabilityUri: declaration.capability_uri,
    declaredAt: declaration.declared_at,
    signedBy: declaration.key_id,
    algorithm: declaration.algorithm,
    signature: declaration.signature,
    createdAt: now,
  })
  return { capability: toView(record), created }
}

/** Agents of `tenantId` declaring `capabilityUri`. */
export async function searchCapabilities(
  deps: Pick<CapabilityDeps, 'authStore'>,
  tenantId: string,
  capabilityUri: string,
): Promise<{ data: CapabilityView[]; total: number }> {
  assertCapabilityUri(capabilityUri)
  const rows = await deps.authStore.findCapabilities(tenantId, capabilityUri, CAPABILITY_LIST_LIMIT)
  return { data: rows.map(toView), total: rows.length }
}

/** Capabilities one agent declared in `tenantId`. */
export async function listAgentCapabilities(
  deps: Pick<CapabilityDeps, 'authStore'>,
  tenantId: string,
  agentDid: string,
): Promise<{ data: CapabilityView[]; total: number }> {
  const rows = await deps.authStore.listAgentCapabilities(tenantId, agentDid, CAPABILITY_LIST_LIMIT)
  return { data: rows.map(toView), total: rows.length }
}

function assertCapabilityUri(uri: string): void {
  if (!CAPABILITY_URI.test(uri)) {
    throw new ControlPlaneError(
      'VALIDATION_ERROR',
      'capability_uri must be urn:acdp:cap:<verb>:<type>:<domain>, each segment [a-z0-9_]+',
    )
  }
}

function toView(record: CapabilityRecord): CapabilityView {
  return {
    agent_did: record.agentDid,
    capability_uri: record.capabilityUri,
    declared_at: record.declaredAt,
    signed_by: record.signedBy,
  }
}
