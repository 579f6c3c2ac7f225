/**
 * Kysely table types of the registry's database — the one place that names tables and columns.
 *
 * Design rules (RFC-ACDP-0003/0004 MUSTs made cheap by constraints):
 * - `context.body_text` is the exact JSON text served on retrieval: the producer's request text with the four
 *   registry-assigned members appended, never re-serialized (byte fidelity, unknown members kept).
 * - Status is never stored. Its INPUTS are: `superseded_by` (set in the publishing transaction of the
 *   successor) and `expires_at_ms`; status is derived at read time (RFC-ACDP-0004 §4).
 * - `UNIQUE(supersedes)` (a partial index over non-null values) makes "exactly one successor" a database fact
 *   (RFC-ACDP-0003 §2.1, 409 races);
 *   `UNIQUE(lineage_id, version)` guards the linear lineage; the `(agent_id, idempotency_key)` primary key of
 *   `idempotency_record` is the RFC-ACDP-0003 §6.2.2 atomic-idempotency contract.
 * - Columns used by search filters and visibility are denormalized from the body at publish time, so search
 *   never parses bodies. All timestamps are integer epoch milliseconds; booleans would be 0/1 integers.
 *
 * Give the registry its own database (or PostgreSQL schema); table names are not prefixed.
 */
import type { ColumnType } from 'kysely'

export interface ContextTable {
  /** `acdp://<authority>/<uuid v4>`; primary key. */
  ctx_id: string
  /** `lin:sha256:<hex>` of the lineage's first version (RFC-ACDP-0001 §5.6). Indexed with `version` (unique). */
  lineage_id: string
  version: number
  /** Predecessor ctx_id, or null for a first version. UNIQUE: at most one successor per context. */
  supersedes: string | null
  /** Successor ctx_id; null while this context is a lineage head. Status input, written by the successor's publish. */
  superseded_by: string | null
  /** The verified signing identity (a DID). Indexed. */
  agent_id: string
  /** The body's `type` (e.g. `data_snapshot`, `key-revocation`, `vendor:custom`). Indexed. */
  context_type: string
  /** `public` | `restricted` | `private` (frozen per body). */
  visibility: string
  /** JSON array of the body's `audience` DIDs (`[]` when absent), for single-row visibility checks. */
  audience_json: string
  title: string
  summary: string | null
  description: string | null
  domain: string | null
  /** Exact `schema_uri` string (search matches it byte for byte). */
  schema_uri: string | null
  /**
   * Lower-cased `title`, `summary`, `description`, tags, `type`, `domain` and `agent_id`, joined by newlines:
   * the haystack of the search `q` parameter (RFC-ACDP-0005 §2.5.1), so `q` never reads `body_text`.
   */
  search_text: string
  /** As verified: `sha256:<hex>`; also the ETag. */
  content_hash: string
  /** Registry-assigned, canonical millisecond form, exactly as in the body. */
  created_at: string
  /** Same instant as `created_at`, for ordering and range filters. Indexed with `ctx_id`. */
  created_at_ms: number
  /** Producer `expires_at` floored to ms, or null. Status input (`expired` when now > this). */
  expires_at_ms: number | null
  /** Producer `data_period.start` / `.end` floored to ms, or null. */
  data_period_start_ms: number | null
  data_period_end_ms: number | null
  /** The body's exact JSON text as served by GET /contexts/{ctx_id}/body. Immutable. */
  body_text: string
  /** The RFC-ACDP-0010 receipt JSON minted in the publish transaction (receipts profile), else null. Immutable. */
  registry_receipt: string | null
  /** Position of this publish's transparency-log leaf (log profile), else null. Immutable. */
  leaf_index: number | null
  /**
   * RFC-ACDP-0013 §4.1 `lifecycle_events`: a JSON array text of the accepted events in acceptance order, or null
   * when there are none. Append-only: the lifecycle service only ever rewrites it as the old array plus one event.
   */
  lifecycle_events_json: ColumnType<string | null, string | null | undefined, string | null>
  /** Events in `lifecycle_events_json`; the compare-and-swap guard of an append. Partially indexed (> 0). */
  lifecycle_event_count: ColumnType<number, number | undefined, number>
  /** Status input: 1 while the last retracted/republished event is `retracted` (RFC-ACDP-0013 §7.1), else 0. */
  retracted: ColumnType<number, number | undefined, number>
  /**
   * The tenant the context was published in (`default` without tenancy); every context query filters on it.
   * Indexed with (`created_at_ms`, `ctx_id`) for one tenant's result order.
   */
  tenant_id: string
}

/** One row per (context, audience DID): lets search put the visibility predicate in SQL. */
export interface ContextAudienceTable {
  ctx_id: string
  did: string
}

/** One row per (context, tag), original case; search matches tags exactly. */
export interface ContextTagTable {
  ctx_id: string
  tag: string
}

/**
 * One row per (context, `derived_from` entry); search's "derives from X" filter probes it per candidate context
 * by its (ctx_id, source_ctx_id) primary key.
 */
export interface ContextDerivedFromTable {
  ctx_id: string
  source_ctx_id: string
}

/** RFC-ACDP-0003 §6: one row per (verified agent, Idempotency-Key), written in the publish transaction. */
export interface IdempotencyRecordTable {
  /** The publishing request's tenant: the primary key is (tenant_id, agent_id, idempotency_key). */
  tenant_id: string
  agent_id: string
  idempotency_key: string
  /** `content_hash` of the original publish; a different hash under the same key is `duplicate_publish`. */
  content_hash: string
  /** The verified original signature; a byte-identical retry may replay without re-verification. */
  signature_algorithm: string
  signature_key_id: string
  signature_value: string
  ctx_id: string
  /** The original publish response, exactly as sent (replayed with 200). */
  response_json: string
  created_at_ms: number
  /** Rows at or past this instant are ignored and swept. Indexed. */
  expires_at_ms: number
}

/**
 * The transparency log's single state row (`id` = 1): the committed tree size. PostgreSQL only since migration
 * 0007 (its row lock serializes appenders); SQLite derives the size from `log_leaf`.
 */
export interface LogStateTable {
  id: number
  tree_size: number
}

/** One RFC-ACDP-0012 §4 leaf per logged publish, dense from 0 in commit order. */
export interface LogLeafTable {
  leaf_index: number
  ctx_id: string
  /** The leaf's JCS text (the leaf encoding of §4); its leaf hash is node (0, leaf_index). */
  leaf_json: string
  /**
   * Copies of the context's tenant_id, visibility, agent_id and audience_json (immutable there), so the leaf
   * echo's visibility check reads no `context` row (migration 0008). NULL: no context row; never echoed.
   */
  tenant_id: string | null
  visibility: string | null
  agent_id: string | null
  audience_json: string | null
}

/**
 * The hash of a complete perfect subtree (level, idx), covering leaves [idx·2^level, (idx+1)·2^level), stored
 * at its post-order position (log-node-position.ts, migration 0007). Immutable.
 */
export interface LogNodeTable {
  /** `logNodePosition(level, idx)`: the nodes one append completes are consecutive keys. */
  pos: number
  /** Raw 32-byte SHA-256. */
  hash: Uint8Array
}

/** Every checkpoint this registry signed, by tree size (the anchor of the log self-check). */
export interface LogCheckpointTable {
  tree_size: number
  checkpoint_json: string
}

/** An outstanding /auth/challenge nonce (single-use: redeeming deletes the row). */
export interface AuthChallengeTable {
  /** 24 random bytes, base64url; primary key. */
  nonce: string
  /** The DID the challenge was issued to; only that DID can redeem it. */
  agent_id: string
  /** The `expires_at` string exactly as issued (it is part of the signing input). */
  expires_at: string
  /** Same instant in epoch ms; rows past it are refused and swept. Indexed. */
  expires_at_ms: number
}

/** A revoked bearer token, kept until its own expiry (after which it is refused anyway). */
export interface AuthRevokedTokenTable {
  /** The token's `jti`; primary key. */
  jti: string
  /** The token's `sub` (agent DID). */
  subject: string
  /** user_logout | admin_revoke | key_rotation | security_incident | unspecified. */
  reason: string
  revoked_at_ms: number
  /** The token's `exp` in ms; the row is swept after it. Indexed. */
  expires_at_ms: number
}

/** A shared token bucket (`rate_limit.backend = "postgres"`), keyed by (scope, bucket_key). */
export interface RateLimitBucketTable {
  /** The limiter: auth_per_ip, auth_global, challenge_per_agent, agent_write. */
  scope: string
  /** Client IP, agent DID, or "global". */
  bucket_key: string
  /** Tokens left at `updated_at_ms` (fractional: the bucket refills continuously). */
  tokens: number
  /** Database clock (epoch ms) of the last update; never moves backwards. Indexed for pruning. */
  updated_at_ms: number
  /** Whether the last take found a whole token (read back by the same statement). */
  admitted: boolean
}

/** Per configured revocation feed: the unix-ms cursor of the last page applied whole. */
export interface AuthRevocationFeedCursorTable {
  /** The `[[auth.revocation_feeds]]` entry's feed_url; primary key. */
  feed_url: string
  issuer: string
  cursor_ms: number
  updated_at_ms: number
}

/** A token revoked by a peer issuer, learnt from its feed; primary key (issuer, jti). */
export interface AuthPeerRevokedTokenTable {
  issuer: string
  jti: string
  subject: string
  revoked_at_ms: number
  /** The token's `exp` in ms; swept after it. Indexed. */
  expires_at_ms: number
}

export interface RegistryDatabase {
  context: ContextTable
  context_audience: ContextAudienceTable
  context_tag: ContextTagTable
  context_derived_from: ContextDerivedFromTable
  idempotency_record: IdempotencyRecordTable
  log_state: LogStateTable
  log_leaf: LogLeafTable
  log_node: LogNodeTable
  log_checkpoint: LogCheckpointTable
  auth_challenge: AuthChallengeTable
  auth_revoked_token: AuthRevokedTokenTable
  rate_limit_bucket: RateLimitBucketTable
  auth_revocation_feed_cursor: AuthRevocationFeedCursorTable
  auth_peer_revoked_token: AuthPeerRevokedTokenTable
}
