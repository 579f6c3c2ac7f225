/**
 * Pinned agent keys of playground builds (`[[playground.pinned_keys]]`, product spec "Endpoints"): an operator pins an agent
 * DID to a public key for a validity window, and producer signatures (publish, lifecycle events, the /auth/token
 * challenge) are checked against the pin instead of the DID document — no DID fetch. With
 * `playground.pinned_only` an agent without a pin valid now is refused (403 key_not_authorized); otherwise an
 * unpinned agent resolves its DID as usual.
 *
 * `POST /admin/pinned-keys/reload` replaces the set from the configuration source, validated with exactly the
 * startup rules (a reload must never install what startup would refuse, or a restart would fail on it); a refused reload
 * keeps the current set.
 */
import { normalizePublicKey, ProtocolError, type ResolvedKey } from '@acdp/protocol'
import type { KeyResolver } from '../core/deps.js'

/** One `[[playground.pinned_keys]]` entry as configured. */
export interface PinnedKeyEntry {
  agent_did: string
  public_key_b64: string
  algorithm: 'ed25519' | 'ecdsa-p256'
  /** Unix seconds, inclusive. */
  valid_from: number
  /** Unix seconds, exclusive. */
  valid_until: number
}

interface PinnedKey {
  algorithm: 'ed25519' | 'ecdsa-p256'
  publicKey: Uint8Array
  validFromMs: number
  validUntilMs: number
}

const PINNABLE_DID = /^did:(web|key):[A-Za-z0-9._:%-]+$/
const STRICT_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/

/** Why `entry` is not a valid pin (never quoting the key), or undefined. Pure; used by config validation too. */
export function pinnedKeyProblem(entry: PinnedKeyEntry): string | undefined {
  if (!PINNABLE_DID.test(entry.agent_did)) return `agent_did "${entry.agent_did}" is not a did:web or did:key DID`
  const bytes = decodeKey(entry.public_key_b64)
  if (bytes === undefined) return `public_key_b64 of ${entry.agent_did} is not base64`
  if (entry.algorithm === 'ed25519' && bytes.length !== 32) {
    return `public_key_b64 of ${entry.agent_did} must be the raw 32-byte Ed25519 key`
  }
  if (entry.algorithm === 'ecdsa-p256' && (bytes.length !== 65 || bytes[0] !== 0x04)) {
    return `public_key_b64 of ${entry.agent_did} must be the 65-byte uncompressed P-256 point (0x04 prefix)`
  }
  if (entry.valid_from >= entry.valid_until) return `valid_from of ${entry.agent_did} must be before valid_until`
  try {
    // Strict: off-curve and small-order Ed25519 keys would accept forged signatures.
    normalizePublicKey({ algorithm: entry.algorithm, publicKey: bytes })
  } catch {
    return `public_key_b64 of ${entry.agent_did} is not a valid ${entry.algorithm} public key`
  }
  return undefined
}

function decodeKey(text: string): Uint8Array | undefined {
  if (text === '' || !STRICT_BASE64.test(text)) return undefined
  return new Uint8Array(Buffer.from(text, 'base64'))
}

/** The pins in memory; `replace` swaps the whole set in one assignment. */
export class PinnedKeys {
  #byDid: Map<string, PinnedKey[]>
  #count: number

  /** @throws TypeError when an entry is invalid (config validation refuses such entries first). */
  constructor(entries: readonly PinnedKeyEntry[]) {
    this.#byDid = PinnedKeys.#index(entries)
    this.#count = entries.length
  }

  get count(): number {
    return this.#count
  }

  /** How many pins are valid at `nowMs`. */
  validCount(nowMs: number): number {
    let n = 0
    for (const pins of this.#byDid.values()) n += pins.filter((pin) => isValidAt(pin, nowMs)).length
    return n
  }

  /** The first pin of `did` valid at `nowMs`, or undefined. */
  find(did: string, nowMs: number): PinnedKey | undefined {
    return this.#byDid.get(did)?.find((pin) => isValidAt(pin, nowMs))
  }

  /** Replaces every pin. @throws TypeError on an invalid entry, leaving the current set in place. */
  replace(entries: readonly PinnedKeyEntry[]): void {
    const next = PinnedKeys.#index(entries)
    // One assignment: a concurrent verification sees the old set or the new one, never a mix.
    this.#byDid = next
    this.#count = entries.length
  }

  static #index(entries: readonly PinnedKeyEntry[]): Map<string, PinnedKey[]> {
    const map = new Map<string, PinnedKey[]>()
    for (const entry of entries) {
      const problem = pinnedKeyProblem(entry)
      if (problem !== undefined) throw new TypeError(`playground.pinned_keys: ${problem}`)
      const key = normalizePublicKey({
        algorithm: entry.algorithm,
        publicKey: decodeKey(entry.public_key_b64) as Uint8Array,
      })
      const pin: PinnedKey = {
        algorithm: entry.algorithm,
        publicKey: key.publicKey,
        validFromMs: entry.valid_from * 1000,
        validUntilMs: entry.valid_until * 1000,
      }
      map.set(entry.agent_did, [...(map.get(entry.agent_did) ?? []), pin])
    }
    return map
  }
}

function isValidAt(pin: PinnedKey, nowMs: number): boolean {
  return nowMs >= pin.validFromMs && nowMs < pin.validUntilMs
}

/**
 * A key resolver answering from the pins first: a DID with a pin valid now resolves to the pinned key whatever
 * the key_id fragment; otherwise `pinnedOnly` refuses (reason `not_pinned`, answered as 403 key_not_authorized)
 * and the default delegates to `fallback` (DID resolution).
 */
export function createPinnedKeyResolver(options: {
  pins: PinnedKeys
  pinnedOnly: boolean
  fallback: KeyResolver
  clock: () => Date
}): KeyResolver {
  return {
    async resolveKey(keyId, resolveOptions) {
      const hash = keyId.indexOf('#')
      const did = hash < 0 ? keyId : keyId.slice(0, hash)
      const pin = options.pins.find(did, options.clock().getTime())
      if (pin !== undefined) {
        const key: ResolvedKey = { did, keyId, algorithm: pin.algorithm, publicKey: pin.publicKey }
        return key
      }
      if (options.pinnedOnly) {
        throw new ProtocolError('key_resolution_failed', 'No pinned key of this agent is valid now.', {
          details: { reason: 'not_pinned' },
        })
      }
      return options.fallback.resolveKey(keyId, resolveOptions)
    },
  }
}
