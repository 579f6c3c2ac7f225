/**
 * `POST /contexts` behaviour (RFC-ACDP-0003 §2.1, §3, §4, §6): the verification pipeline, idempotency,
 * supersession and the single persisting transaction. Steps 1–7 finish before anything is written; nothing is
 * written on any failure (pub-011).
 *
 * Order: schema (route) → signer identity (key_id/agent_id binding, DID method) → runtime body rules →
 * embedded data → content_hash → idempotency lookup → per-agent budget peek → algorithm, key resolution,
 * signature → a tenancy refusal held back until now → budget take → key-revocation
 * self-signature → signing key not revoked (RFC-ACDP-0014 §7) → supersession checks → ids, lineage, body text →
 * one transaction.
 *
 * Idempotency binding (RFC-ACDP-0003 §6.2: the key belongs to the *verified* agent). The lookup runs before any
 * DID or signature work. A retry carrying the same content_hash AND the byte-identical signature of the
 * verified original is replayed at once (200) — it proves nothing new and costs nothing. Any other request that
 * hits a live record (same hash re-signed, or a different hash) is verified first, so nobody can probe or
 * occupy another agent's keys: a verified same-hash request is replayed, a verified different-hash request
 * gets 409 duplicate_publish.
 */
import {
  computeContentHash,
  computeKeyFingerprint,
  computeLeafHash,
  deriveLineageId,
  encodeMintedLogLeaf,
  type MintedRegistryReceipt,
  mintRegistryReceiptAsync,
  type PublishRequest,
  type SigningKey,
} from '@acdp/protocol'
import type { RegistryDeps } from '../core/deps.js'
import { fromProtocolError, RegistryError } from '../core/errors.js'
import type { IdempotencyRecord, NewContext, NewLogLeaf, StoredContext } from '../store/store.js'
import type { RateBudget } from '../rate-limit/rate-budget.js'
import type { WriteTenant } from '../tenancy/tenancy.js'
import type { ContextCache } from '../retrieval/context-cache.js'
import { authorityOf, contextLocation, mintCtxId } from '../core/context-id.js'
import { verifyProducerSignature } from './producer-signature.js'
import { assertKeyNotRevoked, type RevocationSigners } from '../auth/revoked-keys.js'
import { checkBodyRules, checkEmbeddedData, checkSignerIdentity } from './publish-checks.js'
import { formatTimestamp, parseTimestampMs } from '../core/timestamps.js'
import { canRetrieve } from '../retrieval/visibility.js'

export interface PublishSettings {
  authority: string
  /** `did:web:<authority>`. */
  registryDid: string
  /** `auth.did_methods`. */
  acceptedDidMethods: readonly string[]
  idempotencyTtlMs: number
  /** The receipt signing key when `acdp-registry-receipts` is on: every first publish gets a receipt. */
  receiptKey?: SigningKey
  /** `log.enabled`: every first publish appends a leaf (requires `receiptKey`). */
  transparencyLog?: boolean
  /** Skips the revocation lookup for signers that never revoked a key (exact on SQLite). */
  revocationSigners?: RevocationSigners
  /**
   * The per-agent write budget (`limits.publish_rate_per_minute`, RFC-ACDP-0008 §4.3), shared with lifecycle
   * events. Peeked before any DID or signature work, a token taken atomically once the signer is proven.
   */
  limiter?: RateBudget
}

export interface PublishInput {
  /** The schema-valid request (the raw parsed value: hashing uses it as is). */
  request: PublishRequest
  /** The exact request text; it becomes the stored body with the registry-assigned members appended. */
  requestText: string
  /** A well-formed Idempotency-Key header, or undefined (malformed keys are treated as absent). */
  idempotencyKey?: string
  /** A well-formed X-Run-Id header, echoed in the published event. */
  runId?: string
  /**
   * The tenant the request acts in (tenancy/tenancy.ts): the context is stored in it, and idempotency records and
   * the supersedes target are looked up only inside it. A refusal that rests on the unproven signer's
   * `[[auth.tenant_agents]]` binding is thrown only once the signature verifies (before any charge), so a forged
   * request cannot tell a bound agent from an unbound one; until then no idempotency record is looked up.
   */
  tenant: WriteTenant
}

export interface PublishOutcome {
  /** 201 for a new context, 200 for an idempotent replay. */
  status: 200 | 201
  ctxId: string
  /** `/contexts/<percent-encoded ctx_id>`. */
  location: string
  /** The closed publish response, exactly as first sent (replays return the stored text). */
  responseJson: string
}

/** Runs the whole publish. Throws RegistryError with the wire code of the first failing step. */
export async function publishContext(
  deps: RegistryDeps,
  settings: PublishSettings,
  cache: ContextCache,
  input: PublishInput,
): Promise<PublishOutcome> {
  const { request, idempotencyKey } = input

  checkSignerIdentity(request, settings.acceptedDidMethods)
  checkBodyRules(request, settings.registryDid)
  checkEmbeddedData(request)

  let contentHash: string
  try {
    contentHash = computeContentHash(request as unknown as Record<string, unknown>)
  } catch (error) {
    throw fromProtocolError(error)
  }
  if (contentHash !== request.content_hash) {
    throw new RegistryError('hash_mismatch', 'content_hash does not match the canonicalized request body.')
  }

  const pending = input.tenant
  if (idempotencyKey !== undefined && pending.tenant !== undefined) {
    const record = await deps.store.findIdempotencyRecord(
      request.agent_id,
      idempotencyKey,
      deps.clock().getTime(),
      pending.tenant,
    )
    if (record) {
      if (record.contentHash === contentHash && isSameSignature(record, request)) return replay(record)
      await verifyAndCharge(deps, settings, request, contentHash, pending)
      return answerExistingRecord(record, contentHash, idempotencyKey)
    }
  }
  const signingKey = await verifyAndCharge(deps, settings, request, contentHash, pending)
  // verifyAndCharge threw any held-back refusal: the tenant is known from here on.
  const tenantId = pending.tenant as string
  const keyFingerprint = computeKeyFingerprint(signingKey)
  if (request.type === 'key-revocation') {
    // RFC-ACDP-0014 §5 step 2: a revocation signed by the key it revokes proves nothing.
    if (keyFingerprint === request.metadata?.revoked_key_fingerprint) {
      throw new RegistryError('key_not_authorized', 'A key-revocation must not be signed by the revoked key.')
    }
  }
  // The publish instant is the created_at assigned below: a key revoked at or before it signs nothing new.
  const now = deps.clock()
  const nowMs = now.getTime()
  await assertKeyNotRevoked(
    deps.store,
    { agentId: request.agent_id, key: signingKey, atMs: nowMs, registryDid: settings.registryDid },
    settings.revocationSigners,
  )

  const predecessor =
    request.supersedes === null ? undefined : await checkSupersession(deps, settings, cache, request, tenantId)

  const createdAt = formatTimestamp(now)
  const ctxId = mintCtxId(settings.authority, deps.random)
  const lineageId = predecessor ? predecessor.lineageId : deriveLineageId(ctxId)
  // RFC-ACDP-0010 §7: minted before the transaction and stored by it, so a receipt exists exactly when the
  // context does; the log leaf binds its hash (RFC-ACDP-0012 §4). Signed on the libuv pool, off the event loop.
  const minted =
    settings.receiptKey === undefined
      ? undefined
      : await mintRegistryReceiptAsync(
          {
            registry_did: settings.registryDid,
            ctx_id: ctxId,
            lineage_id: lineageId,
            origin_registry: settings.authority,
            created_at: createdAt,
            content_hash: contentHash,
            key_fingerprint: keyFingerprint,
          },
          settings.receiptKey,
        )
  const receipt = minted?.receipt
  const receiptJson = receipt === undefined ? null : JSON.stringify(receipt)
  const logLeaf = minted !== undefined && settings.transparencyLog === true ? toLogLeaf(minted) : null
  const responseJson = `{"ctx_id":${JSON.stringify(ctxId)},"lineage_id":${JSON.stringify(lineageId)},"version":${request.version},"created_at":"${createdAt}","status":"active"${receiptJson === null ? '' : `,"registry_receipt":${receiptJson}`}}`
  const bodyText = appendRegistryFields(input.requestText, {
    ctx_id: ctxId,
    // A v≥2 producer may carry lineage_id already; it was checked equal to the anchored value.
    ...(request.lineage_id === undefined ? { lineage_id: lineageId } : {}),
    origin_registry: settings.authority,
    created_at: createdAt,
  })
  const context: NewContext = {
    ctxId,
    tenantId,
    lineageId,
    version: request.version,
    supersedes: request.supersedes,
    agentId: request.agent_id,
    contextType: request.type,
    visibility: request.visibility,
    audience: request.audience ?? [],
    title: request.title,
    summary: request.summary ?? null,
    description: request.description ?? null,
    domain: request.domain ?? null,
    schemaUri: request.schema_uri ?? null,
    tags: request.tags ?? [],
    derivedFrom: request.derived_from,
    contentHash,
    createdAt,
    createdAtMs: nowMs,
    expiresAtMs: request.expires_at === undefined ? null : (parseTimestampMs(request.expires_at) ?? null),
    dataPeriodStartMs: request.data_period ? (parseTimestampMs(request.data_period.start) ?? null) : null,
    dataPeriodEndMs: request.data_period ? (parseTimestampMs(request.data_period.end) ?? null) : null,
    bodyText,
    registryReceipt: receiptJson,
    logLeaf,
  }
  const record: IdempotencyRecord | undefined =
    idempotencyKey === undefined
      ? undefined
      : {
          tenantId,
          agentId: request.agent_id,
          idempotencyKey,
          contentHash,
          signatureAlgorithm: request.signature.algorithm,
          signatureKeyId: request.signature.key_id,
          signatureValue: request.signature.value,
          ctxId,
          responseJson,
          createdAtMs: nowMs,
          expiresAtMs: nowMs + settings.idempotencyTtlMs,
        }

  const outcome = await deps.store.insertContext(context, record)
  if (!outcome.ok) {
    if (outcome.conflict === 'already_superseded') {
      if (request.supersedes !== null) cache.delete(request.supersedes)
      throw supersededTarget('already_superseded', 409, 'The target has already been superseded.')
    }
    // Lost the race for this (agent, key): the winner's record decides (idem-006: one ctx_id, never 409 for
    // the same hash). The signer is verified at this point.
    const winner = await deps.store.findIdempotencyRecord(request.agent_id, idempotencyKey as string, nowMs, tenantId)
    if (!winner) throw new RegistryError('internal_error', 'An unexpected error occurred.')
    return answerExistingRecord(winner, contentHash, idempotencyKey as string)
  }

  if (request.type === 'key-revocation') settings.revocationSigners?.add(request.agent_id)
  if (request.supersedes !== null) cache.refreshStatus(request.supersedes, { supersededBy: ctxId }, nowMs)
  // The new context is not cached here: reads fill the cache (retrieval.ts). Caching every publish kept the
  // cache full of contexts nobody had asked for, the largest part of the registry's memory after sustained
  // publishing (docs/registry/memory.md); the first read costs one indexed lookup instead.
  if (receipt !== undefined) deps.metrics?.recordReceiptMinted()
  if (outcome.leafIndex !== null) deps.metrics?.recordLogLeafAppended()
  if (deps.events.has('context_published')) {
    deps.events.emit({
      type: 'context_published',
      ctx_id: ctxId,
      lineage_id: lineageId,
      agent_id: request.agent_id,
      context_type: request.type,
      visibility: request.visibility,
      version: request.version,
      created_at: createdAt,
      derived_from: request.derived_from,
      tenant_id: tenantId,
      ...(input.runId === undefined ? {} : { run_id: input.runId }),
      ...(receipt === undefined ? {} : { key_fingerprint: keyFingerprint, registry_receipt: receipt }),
    })
  }
  return { status: 201, ctxId, location: contextLocation(ctxId), responseJson }
}

/**
 * The per-agent budget around signer verification (product spec "Limits"; RFC-ACDP-0008 §4.3): an
 * agent already over budget gets 429 before any DID fetch, and a token is taken only once the signature proves
 * the request is the agent's own — a forged request naming a victim costs the victim nothing. The take is atomic
 * (one synchronous step in memory, one statement on the shared PostgreSQL budget): many requests of one agent
 * pass the peek together while their DID fetches are in flight, and only as many as the budget holds go on.
 * Everything after the take (revoked key, supersession refusals, 409, store errors) has been charged. A tenancy
 * refusal held back for the proof is thrown between the proof and the take, so it charges nothing.
 */
async function verifyAndCharge(
  deps: RegistryDeps,
  settings: PublishSettings,
  request: PublishRequest,
  contentHash: string,
  tenant: WriteTenant,
) {
  const limiter = settings.limiter
  if (limiter?.enabled) {
    const wait = await limiter.retryAfterSeconds(request.agent_id, deps.clock().getTime())
    if (wait > 0) throw publishRateLimited(deps, request.agent_id, wait)
  }
  const signingKey = await verifyProducerSignature(deps.resolver, request.signature, contentHash)
  if (tenant.refusal !== undefined) throw tenant.refusal
  if (limiter?.enabled) {
    const wait = await limiter.take(request.agent_id, deps.clock().getTime())
    if (wait > 0) throw publishRateLimited(deps, request.agent_id, wait)
  }
  return signingKey
}

/** 429 for an agent without a token (the peek before verification and the take after it answer alike). */
function publishRateLimited(deps: RegistryDeps, agentId: string, wait: number): RegistryError {
  deps.metrics?.recordRateLimitRejection('publish_per_agent')
  return new RegistryError('rate_limited', 'Per-agent publish rate limit exceeded; retry after Retry-After.', {
    retryAfterSeconds: wait,
    details: { agent_id: agentId, scope: 'publish_per_agent', retry_after_seconds: wait },
  })
}

function isSameSignature(record: IdempotencyRecord, request: PublishRequest): boolean {
  return (
    record.signatureAlgorithm === request.signature.algorithm &&
    record.signatureKeyId === request.signature.key_id &&
    record.signatureValue === request.signature.value
  )
}

function replay(record: IdempotencyRecord): PublishOutcome {
  return {
    status: 200,
    ctxId: record.ctxId,
    location: contextLocation(record.ctxId),
    responseJson: record.responseJson,
  }
}

/** A verified signer hit a live record: same hash replays (200), a different hash is duplicate_publish (409). */
function answerExistingRecord(record: IdempotencyRecord, contentHash: string, idempotencyKey: string): PublishOutcome {
  if (record.contentHash === contentHash) return replay(record)
  throw new RegistryError('duplicate_publish', 'This Idempotency-Key was already used for different content.', {
    details: { idempotency_key: idempotencyKey, original_ctx_id: record.ctxId },
  })
}

/**
 * RFC-ACDP-0003 §3.1 in the normative order: target exists and is retrievable by the publisher → same registry →
 * same agent → lineage → version → not yet superseded. The last is re-checked atomically by the store.
 * A key-revocation may only be superseded by another key-revocation (RFC-ACDP-0014 §4).
 */
async function checkSupersession(
  deps: RegistryDeps,
  settings: PublishSettings,
  cache: ContextCache,
  request: PublishRequest,
  tenantId: string,
): Promise<StoredContext> {
  const targetId = request.supersedes as string
  if (authorityOf(targetId) !== settings.authority) {
    throw supersededTarget(
      'cross_registry_supersession_unsupported',
      400,
      'Cross-registry supersession is not supported.',
    )
  }
  // A target in another tenant, or one the publisher may not see, is reported exactly like a missing one.
  const target = await deps.store.findContext(targetId, tenantId)
  if (!target || !canRetrieve(target, request.agent_id)) {
    throw supersededTarget('not_found', 400, 'The supersedes target does not exist on this registry.')
  }
  if (target.agentId !== request.agent_id) {
    throw new RegistryError('not_authorized', 'Only the producer of a context may supersede it.')
  }
  if (request.lineage_id !== undefined && request.lineage_id !== target.lineageId) {
    throw supersededTarget('lineage_mismatch', 400, 'lineage_id does not match the lineage of the supersedes target.')
  }
  if (target.contextType === 'key-revocation' && request.type !== 'key-revocation') {
    throw supersededTarget(
      'revocation_type_mismatch',
      400,
      'A key-revocation can only be superseded by a key-revocation.',
    )
  }
  if (request.version !== target.version + 1) {
    throw supersededTarget('version_mismatch', 409, 'version must be the target version plus one.', {
      expected_version: target.version + 1,
    })
  }
  if (target.supersededBy !== null) {
    cache.refreshStatus(target.ctxId, { supersededBy: target.supersededBy }, deps.clock().getTime())
    throw supersededTarget('already_superseded', 409, 'The target has already been superseded.')
  }
  return target
}

function supersededTarget(
  reason: string,
  status: 400 | 409,
  message: string,
  extra: Record<string, unknown> = {},
): RegistryError {
  return new RegistryError('superseded_target', message, { status, details: { reason, ...extra } })
}

/**
 * Appends the registry-assigned members to the producer's JSON text without re-serializing it, so every byte the
 * producer sent (number spellings, escapes, member order, unknown DataRef members) is served back unchanged.
 * The text is a schema-valid, non-empty JSON object, so its last non-whitespace character is `}`.
 */
export function appendRegistryFields(requestText: string, fields: Record<string, string>): string {
  const text = requestText.trim()
  const end = text.length - 1
  let members = ''
  for (const [name, value] of Object.entries(fields)) members += `,${JSON.stringify(name)}:${JSON.stringify(value)}`
  return `${text.slice(0, end).trimEnd()}${members}}`
}

/** The §4 leaf of the receipt just minted: its JCS text and §5.1 leaf hash (the receipt hash is reused). */
function toLogLeaf(minted: MintedRegistryReceipt): NewLogLeaf {
  const bytes = encodeMintedLogLeaf(minted)
  return { leafJson: Buffer.from(bytes).toString('utf8'), leafHash: computeLeafHash(bytes) }
}
