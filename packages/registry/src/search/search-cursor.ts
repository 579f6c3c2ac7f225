/**
 * Search pagination cursors (RFC-ACDP-0005 §2.3, §2.5.3–2.5.4).
 *
 * A cursor is AES-256-GCM sealed, so it is both opaque (no client-decodable position, ctx_id or visibility
 * fact — §2.5.4) and authenticated (a forged or edited position never reaches the query). The normalized query
 * is the GCM additional data: a cursor replayed with other filters fails authentication exactly like a tampered
 * one, which yields `invalid_cursor`; a cursor that authenticates but is older than the TTL yields
 * `cursor_expired`. The requester is deliberately not bound: visibility is recomputed for whoever presents the
 * cursor on every page (§2.5.4 last bullet).
 */
import { createCipheriv, createDecipheriv, hkdfSync } from 'node:crypto'

/** The sort position after the last row of a page: `created_at` descending, then `ctx_id` ascending. */
export interface SearchPosition {
  /** The store's sort value of `created_at` (epoch ms). */
  createdAtMs: number
  ctxId: string
}

/** What a valid cursor carries back to the search service. */
export interface OpenedSearchCursor {
  position: SearchPosition
  /**
   * Epoch ms at which the sequence's first page was served. Later pages count `total_estimate` only over
   * contexts created up to it, so the estimate stays stable across pages while new publishes arrive.
   */
  snapshotMs: number
}

/** Result of {@link SearchCursorCodec.open}: the two failure codes are RFC-ACDP-0005 §2.5.4's. */
export type SearchCursorOpenResult =
  { ok: true; cursor: OpenedSearchCursor } | { ok: false; code: 'invalid_cursor' | 'cursor_expired' }

/** Seals and opens cursors for one registry process (or a fleet sharing `secret`). */
export interface SearchCursorCodec {
  /** Seals a cursor for `queryKey` (the normalized query, see the search service) at the current clock. */
  seal(queryKey: string, cursor: OpenedSearchCursor): string
  /**
   * Opens a cursor presented with `queryKey`. Never throws on the cursor text.
   *
   * @param text attacker-controlled: the `cursor` query parameter.
   */
  open(text: string, queryKey: string): SearchCursorOpenResult
}

/** Cursor lifetime default; RFC-ACDP-0005 §2.5.4 requires at least one hour. */
export const DEFAULT_SEARCH_CURSOR_TTL_SECONDS = 3600
/** Smallest accepted cursor secret, in bytes. */
export const MIN_SEARCH_CURSOR_SECRET_BYTES = 32
/** Longest cursor text accepted before any decoding (a sealed cursor is ~150 characters). */
const MAX_CURSOR_CHARS = 1024
/** A cursor minted this far in the future of our clock (another instance's skew) is still accepted. */
const FUTURE_SKEW_MS = 60_000
const FORMAT_VERSION = 1
const IV_BYTES = 12
const TAG_BYTES = 16
const BASE64URL = /^[A-Za-z0-9_-]+$/
const HKDF_INFO = 'acdp-registry:search-cursor:v1'

/**
 * Builds the codec. `secret` (≥ 32 bytes) lets several instances behind one load balancer honour each other's
 * cursors; without it a random per-process key is drawn, so cursors do not survive a restart (they then answer
 * `invalid_cursor`, which clients restart from).
 *
 * @throws TypeError when `secret` is shorter than {@link MIN_SEARCH_CURSOR_SECRET_BYTES} or `ttlSeconds` < 3600.
 */
export function createSearchCursorCodec(options: {
  secret?: Uint8Array | undefined
  ttlSeconds?: number
  clock: () => Date
  random: (byteLength: number) => Uint8Array
}): SearchCursorCodec {
  const ttlMs = (options.ttlSeconds ?? DEFAULT_SEARCH_CURSOR_TTL_SECONDS) * 1000
  if (!Number.isFinite(ttlMs) || ttlMs < DEFAULT_SEARCH_CURSOR_TTL_SECONDS * 1000) {
    throw new TypeError('search cursor TTL must be at least 3600 seconds (RFC-ACDP-0005 §2.5.4)')
  }
  if (options.secret !== undefined && options.secret.byteLength < MIN_SEARCH_CURSOR_SECRET_BYTES) {
    throw new TypeError(`search cursor secret must be at least ${MIN_SEARCH_CURSOR_SECRET_BYTES} bytes`)
  }
  const ikm = options.secret ?? options.random(32)
  // A derived key keeps the configured secret usable for nothing but cursors.
  const key = Buffer.from(hkdfSync('sha256', ikm, Buffer.alloc(0), HKDF_INFO, 32))
  const { clock, random } = options

  return {
    seal(queryKey, cursor) {
      const payload = JSON.stringify([
        clock().getTime(),
        cursor.snapshotMs,
        cursor.position.createdAtMs,
        cursor.position.ctxId,
      ])
      const iv = random(IV_BYTES)
      const cipher = createCipheriv('aes-256-gcm', key, iv)
      cipher.setAAD(Buffer.from(queryKey, 'utf8'))
      const sealed = Buffer.concat([cipher.update(payload, 'utf8'), cipher.final()])
      return Buffer.concat([Buffer.of(FORMAT_VERSION), iv, sealed, cipher.getAuthTag()]).toString('base64url')
    },

    open(text, queryKey) {
      const payload = unseal(text, queryKey, key)
      if (payload === undefined) return { ok: false, code: 'invalid_cursor' }
      const nowMs = clock().getTime()
      if (payload.mintedAtMs > nowMs + FUTURE_SKEW_MS) return { ok: false, code: 'invalid_cursor' }
      if (nowMs - payload.mintedAtMs > ttlMs) return { ok: false, code: 'cursor_expired' }
      return { ok: true, cursor: { position: payload.position, snapshotMs: payload.snapshotMs } }
    },
  }
}

/** Decrypts and shape-checks a cursor; `undefined` for anything that is not a cursor we sealed for this query. */
function unseal(
  text: unknown,
  queryKey: string,
  key: Buffer,
): { mintedAtMs: number; snapshotMs: number; position: SearchPosition } | undefined {
  if (typeof text !== 'string' || text.length === 0 || text.length > MAX_CURSOR_CHARS || !BASE64URL.test(text)) {
    return undefined
  }
  const raw = Buffer.from(text, 'base64url')
  if (raw.length < 1 + IV_BYTES + TAG_BYTES + 1 || raw[0] !== FORMAT_VERSION) return undefined
  let plain: string
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(1, 1 + IV_BYTES), { authTagLength: TAG_BYTES })
    decipher.setAAD(Buffer.from(queryKey, 'utf8'))
    decipher.setAuthTag(raw.subarray(raw.length - TAG_BYTES))
    plain = Buffer.concat([
      decipher.update(raw.subarray(1 + IV_BYTES, raw.length - TAG_BYTES)),
      decipher.final(),
    ]).toString('utf8')
  } catch {
    // Authentication failure: tampered bytes, another key, or another query.
    return undefined
  }
  let fields: unknown
  try {
    fields = JSON.parse(plain)
  } catch {
    return undefined
  }
  if (!Array.isArray(fields) || fields.length !== 4) return undefined
  const [mintedAtMs, snapshotMs, createdAtMs, ctxId] = fields as unknown[]
  if (!isEpochMs(mintedAtMs) || !isEpochMs(snapshotMs) || !isEpochMs(createdAtMs)) return undefined
  if (typeof ctxId !== 'string' || ctxId.length === 0 || ctxId.length > 512) return undefined
  return { mintedAtMs, snapshotMs, position: { createdAtMs, ctxId } }
}

function isEpochMs(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0
}
