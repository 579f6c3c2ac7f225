/**
 * JWKS of trusted issuers (TRUSTED_ISSUERS entries with EdDSA), fetched through the SSRF-safe outbound client
 * (64 KiB cap, 5 s deadline), cached for 5 minutes (30 s after a failure), and refetched early when a token names
 * an unknown `kid`, at most once per `refreshMinIntervalMs` per issuer so a stream of forged kids cannot turn
 * into a stream of outbound requests. Only OKP/Ed25519 keys are kept.
 */
import { createPublicKey, type KeyObject } from 'node:crypto'
import type { OutboundClient } from '@acdp/protocol'

export interface JwksKey {
  key: KeyObject
  /** Raw 32-byte public key for the strict Ed25519 pre-check. */
  raw: Uint8Array
}

export interface JwksCache {
  /** The key with this `kid` (or the only key when `kid` is absent), or undefined. Never throws. */
  find(url: string, kid: string | undefined): Promise<JwksKey | undefined>
}

export interface JwksCacheOptions {
  outbound: OutboundClient
  now: () => number
  successTtlMs?: number
  errorTtlMs?: number
  refreshMinIntervalMs?: number
  log?: { warn(object: unknown, message?: string): void }
}

interface Entry {
  keys: Map<string, JwksKey>
  /** Keys without a kid, in document order. */
  anonymous: JwksKey[]
  fetchedAt: number
  expiresAt: number
  inflight: Promise<void> | undefined
}

const MAX_JWKS_BYTES = 64 * 1024
const JWKS_TIMEOUT_MS = 5000

export function createJwksCache(options: JwksCacheOptions): JwksCache {
  const successTtl = options.successTtlMs ?? 300_000
  const errorTtl = options.errorTtlMs ?? 30_000
  const refreshMin = options.refreshMinIntervalMs ?? 30_000
  const entries = new Map<string, Entry>()

  const refresh = (url: string, entry: Entry): Promise<void> => {
    entry.inflight ??= (async () => {
      try {
        const response = await options.outbound.request(url, {
          headers: { accept: 'application/json' },
          maxBodyBytes: MAX_JWKS_BYTES,
          totalTimeoutMs: JWKS_TIMEOUT_MS,
          maxRedirects: 0,
        })
        if (response.status !== 200) throw new Error(`JWKS answered ${response.status}`)
        const parsed = parseJwks(JSON.parse(Buffer.from(response.body).toString('utf8')) as unknown)
        entry.keys = parsed.keys
        entry.anonymous = parsed.anonymous
        entry.expiresAt = options.now() + successTtl
      } catch (error) {
        options.log?.warn({ err: error, url }, 'trusted issuer JWKS fetch failed')
        entry.expiresAt = options.now() + errorTtl
      } finally {
        entry.fetchedAt = options.now()
        entry.inflight = undefined
      }
    })()
    return entry.inflight
  }

  return {
    async find(url, kid) {
      let entry = entries.get(url)
      if (entry === undefined) {
        entry = { keys: new Map(), anonymous: [], fetchedAt: -Infinity, expiresAt: -Infinity, inflight: undefined }
        entries.set(url, entry)
      }
      const now = options.now()
      if (now >= entry.expiresAt) await refresh(url, entry)
      const lookup = (): JwksKey | undefined =>
        kid === undefined
          ? entry.anonymous.length + entry.keys.size === 1
            ? firstKey(entry)
            : undefined
          : entry.keys.get(kid)
      const found = lookup()
      if (found !== undefined || options.now() - entry.fetchedAt < refreshMin) return found
      await refresh(url, entry)
      return lookup()
    },
  }
}

function firstKey(entry: Entry): JwksKey | undefined {
  return entry.anonymous[0] ?? entry.keys.values().next().value
}

function parseJwks(document: unknown): { keys: Map<string, JwksKey>; anonymous: JwksKey[] } {
  const keys = new Map<string, JwksKey>()
  const anonymous: JwksKey[] = []
  const list = (document as { keys?: unknown } | null)?.keys
  if (!Array.isArray(list)) throw new Error('JWKS has no keys array')
  for (const jwk of list as unknown[]) {
    if (jwk === null || typeof jwk !== 'object') continue
    const { kty, crv, x, kid, use } = jwk as Record<string, unknown>
    if (kty !== 'OKP' || crv !== 'Ed25519' || typeof x !== 'string' || (use !== undefined && use !== 'sig')) continue
    const raw = new Uint8Array(Buffer.from(x, 'base64url'))
    if (raw.length !== 32) continue
    const key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' })
    if (typeof kid === 'string') keys.set(kid, { key, raw })
    else anonymous.push({ key, raw })
  }
  return { keys, anonymous }
}
