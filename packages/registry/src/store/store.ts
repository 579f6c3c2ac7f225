/**
 * The registry's persistence contract. Implemented once with Kysely over SQLite and PostgreSQL
 * (kysely-store.ts); the contract suite (test/store-contract.test.ts) runs against both.
 *
 * Every method is safe to call concurrently. A write is durable once its promise resolves. Reads return
 * `undefined` for an absent row; deciding that absence means `not_found` is the caller's job.
 */

/** A persisted context: the immutable body text plus the denormalized columns the services need. */
export interface StoredContext {
  ctxId: string
  lineageId: string
  version: number
  supersedes: string | null
  /** Status input: the successor's ctx_id, or null while this is a lineage head. */
  supersededBy: string | null
  agentId: string
  contextType: string
  visibility: 'public' | 'restricted' | 'private'
  audience: readonly string[]
  contentHash: string
  createdAt: string
  createdAtMs: number
  /** Status input: `expires_at` floored to ms, or null. */
  expiresAtMs: number | null
  /** Exact JSON text of the body. */
  bodyText: string
  /** The receipt JSON minted at publish (receipts profile), or null. */
  registryReceipt: string | null
  /** Transparency-log leaf index (log profile), or null when the publish was not logged. */
  leafIndex: number | null
  /** Status input (RFC-ACDP-0013 §7.1): the last retracted/republished event is `retracted`. */
  retracted: boolean
  /** The `lifecycle_events` array as JSON text, or null when the context has none (the member is then omitted). */
  lifecycleEventsJson: string | null
  /** The tenant it was published in (`default` without tenancy). */
  tenantId: string
}

/** One row of the admin listing: the identity and status inputs of a context, never its body. */
export interface ListedContext {
  ctxId: string
  lineageId: string
  version: number
  agentId: string
  contextType: string
  title: string
  contentHash: string
  createdAt: string
  createdAtMs: number
  expiresAtMs: number | null
  supersededBy: string | null
  retracted: boolean
}

/** The mutable status inputs of a context: what a cached copy re-reads when another process may have changed it. */
export interface StatusInputs {
  supersededBy: string | null
  retracted: boolean
  lifecycleEventsJson: string | null
}

/** An append to a context's lifecycle history (RFC-ACDP-0013 §4.1): the whole new array and the state it derives. */
export interface LifecycleAppend {
  ctxId: string
  /** The context's tenant: the append touches the row only inside it. */
  tenantId: string
  /** Events the caller read; the append happens only if the row still holds exactly this many. */
  expectedCount: number
  /** The previous array plus the new event, as JSON text. */
  eventsJson: string
  /** Retraction state after the append. */
  retracted: boolean
}

/** A stored `key-revocation` context, as the publish and lifecycle checks read it (RFC-ACDP-0014). */
export interface StoredKeyRevocation {
  ctxId: string
  /** The revocation's signer: the producer, or this registry for a registry-attested revocation. */
  agentId: string
  bodyText: string
}

/** What the publish transaction writes for a new context. */
export interface NewContext {
  ctxId: string
  /** The publishing request's tenant. */
  tenantId: string
  lineageId: string
  version: number
  supersedes: string | null
  agentId: string
  contextType: string
  visibility: 'public' | 'restricted' | 'private'
  audience: readonly string[]
  title: string
  summary: string | null
  description: string | null
  domain: string | null
  schemaUri: string | null
  tags: readonly string[]
  derivedFrom: readonly string[]
  contentHash: string
  createdAt: string
  createdAtMs: number
  expiresAtMs: number | null
  dataPeriodStartMs: number | null
  dataPeriodEndMs: number | null
  bodyText: string
  /** The signed receipt JSON to persist with the body (receipts profile), or null. */
  registryReceipt: string | null
  /** The log leaf to append in the same transaction (log profile), or null. */
  logLeaf: NewLogLeaf | null
}

/** A leaf to append: its JCS text and its RFC-ACDP-0012 §5.1 leaf hash. */
export interface NewLogLeaf {
  leafJson: string
  leafHash: Uint8Array
}

/** A stored leaf with the visibility facts of its context (to decide whether `leaf` may be echoed). */
export interface StoredLogLeaf extends LogLeafFacts {
  /** Stored level-0 node hash. */
  leafHash: Uint8Array
}

/** A stored leaf's text and its context's visibility facts, without its hash (the inclusion proof's echo). */
export interface LogLeafFacts {
  leafIndex: number
  ctxId: string
  leafJson: string
  visibility: 'public' | 'restricted' | 'private'
  agentId: string
  audience: readonly string[]
  /** The context's tenant: the leaf itself is echoed only inside it. */
  tenantId: string
}

/** A (tenant, agent, Idempotency-Key) record (RFC-ACDP-0003 §6). */
export interface IdempotencyRecord {
  tenantId: string
  agentId: string
  idempotencyKey: string
  contentHash: string
  signatureAlgorithm: string
  signatureKeyId: string
  signatureValue: string
  ctxId: string
  /** The publish response exactly as first sent. */
  responseJson: string
  createdAtMs: number
  expiresAtMs: number
}

/**
 * Result of the publish transaction. A conflict means nothing was written:
 * - `already_superseded`: another context already supersedes `supersedes` (the race loser, RFC-ACDP-0003 §2.1);
 * - `idempotency_key`: a live record for (agent, key) exists — re-read it to decide replay vs duplicate.
 */
export type InsertContextResult =
  { ok: true; leafIndex: number | null } | { ok: false; conflict: 'already_superseded' | 'idempotency_key' }

export interface RegistryStore {
  readonly kind: 'sqlite' | 'postgres'

  /** True when the database answers a trivial query. Never throws. */
  checkHealth(): Promise<boolean>

  /** The context `ctxId` of `tenantId`; a context of another tenant reads as absent. */
  findContext(ctxId: string, tenantId: string): Promise<StoredContext | undefined>

  /**
   * Current status inputs of a context (`undefined` if absent): the cheap refresh of a cached copy, which was read
   * inside its tenant already.
   */
  findStatusInputs(ctxId: string): Promise<StatusInputs | undefined>

  /**
   * Retraction state of a context (RFC-ACDP-0013 §7.1), `undefined` if absent. The one question other features
   * (lineage-head receipts, log views) ask about lifecycle state.
   */
  findRetractionState(ctxId: string): Promise<{ retracted: boolean } | undefined>

  /**
   * Appends a lifecycle event and sets the retraction flag in one atomic statement, only if the context still holds
   * `expectedCount` events. Resolves false when it does not (a concurrent append won, or the context is gone).
   */
  appendLifecycleEvent(append: LifecycleAppend): Promise<boolean>

  /** True when any context holds a lifecycle event (the startup refusal with `lifecycle.enabled = false`). */
  hasLifecycleState(): Promise<boolean>

  /** Every DID that signed a stored `key-revocation` context (loaded once at startup). */
  listKeyRevocationSigners(): Promise<string[]>

  /** The `key-revocation` contexts published by any of `agentIds` (a handful per producer). */
  listKeyRevocations(agentIds: readonly string[]): Promise<StoredKeyRevocation[]>

  /** Every version of a lineage in `tenantId`, `version` ascending. */
  listLineage(lineageId: string, tenantId: string): Promise<StoredContext[]>

  /**
   * Public contexts of `tenantId` (GET /admin/contexts), `created_at` descending then `ctx_id` ascending, strictly
   * after `after` when given.
   */
  listPublicContexts(
    tenantId: string,
    page: { after?: { createdAtMs: number; ctxId: string }; limit: number },
  ): Promise<ListedContext[]>

  /** A live (not yet expired at `nowMs`) idempotency record of `tenantId`. */
  findIdempotencyRecord(
    agentId: string,
    idempotencyKey: string,
    nowMs: number,
    tenantId: string,
  ): Promise<IdempotencyRecord | undefined>

  /**
   * Persists a context atomically: marks the predecessor superseded (only if it is not yet), inserts the
   * context and its side rows, and writes the idempotency record when given (replacing an expired one).
   * All or nothing.
   */
  insertContext(context: NewContext, idempotency?: IdempotencyRecord): Promise<InsertContextResult>

  /** Deletes idempotency records expired at `nowMs`; returns how many. */
  sweepIdempotencyRecords(nowMs: number): Promise<number>

  /** Live idempotency records (for /admin/status). */
  countIdempotencyRecords(nowMs: number): Promise<number>

  /** Names of the applied registry migrations, in name order (for /admin/status). */
  listAppliedMigrations(): Promise<string[]>

  /** The transparency log's tables (all-or-nothing appends happen inside `insertContext`). */
  readonly log: LogStore
}

/** Reads of the RFC-ACDP-0012 transparency log. */
export interface LogStore {
  /** The committed tree size (every acknowledged logged publish is below it). */
  readTreeSize(): Promise<number>
  /**
   * The stored perfect-subtree hashes at `addresses`, in request order. Throws when one is missing (a node that
   * is not complete yet is a caller bug; a complete one that is missing is corruption).
   */
  readNodes(addresses: readonly { level: number; index: number }[]): Promise<Uint8Array[]>
  /** One leaf with its context's visibility facts, or undefined (no such leaf, or no context row for it). */
  findLeaf(leafIndex: number): Promise<LogLeafFacts | undefined>
  /** Leaves `[start, end)` in index order, each with its context's visibility facts. */
  listLeaves(start: number, end: number): Promise<StoredLogLeaf[]>
  /** Stored leaf texts `[start, end)` in index order, without any join (the self-check reads them raw). */
  listLeafTexts(start: number, end: number): Promise<Array<{ leafIndex: number; leafJson: string }>>
  /** Every stored node of one level with index in `[start, end)`, index ascending (the self-check). */
  listNodes(level: number, start: number, end: number): Promise<Array<{ index: number; hash: Uint8Array }>>
  /** Persists a signed checkpoint (idempotent per tree size: the first one stored stays). */
  saveCheckpoint(treeSize: number, checkpointJson: string): Promise<void>
  /** The stored checkpoint of the largest tree size, if any. */
  findLatestCheckpoint(): Promise<{ treeSize: number; checkpointJson: string } | undefined>
  /** The stored checkpoint for exactly `treeSize`, if any. */
  findCheckpoint(treeSize: number): Promise<string | undefined>
}
