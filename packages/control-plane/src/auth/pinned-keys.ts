/**
 * Pinned agent keys (CONTROL_PLANE_PINNED_KEYS; product spec "Authentication"): the keys /auth/token and
 * POST /capabilities verify agent signatures with. No DID resolution happens on these paths: an agent without a
 * pinned key valid now is refused.
 *
 * Format: comma-separated `<did>=<base64 key>[:ed25519|:ecdsa-p256][:<fromUnix>..<untilUnix>]`, split on the FIRST
 * `=` (base64 padding holds `=` too). Ed25519 keys are the raw 32 bytes, P-256 keys a SEC1 point (33 or 65 bytes).
 * The validity window is from-inclusive, until-exclusive; either end may be open, `..` alone is refused.
 *
 * Unlike the reference (which skipped malformed entries with a warning), a malformed entry is refused: at boot the
 * service does not start, and a reload that would drop a key keeps the previous directory.
 */

/** Signature algorithms a pinned key can carry (the request's `algorithm` spelling). */
export type PinnedAlgorithm = 'ed25519' | 'ecdsa-p256'

/** One pinned key. */
export interface PinnedKey {
  did: string
  algorithm: PinnedAlgorithm
  publicKey: Uint8Array
  /** Unix seconds, inclusive; undefined = open. */
  validFrom: number | undefined
  /** Unix seconds, exclusive; undefined = open. */
  validUntil: number | undefined
}

/** The parsed variable: the keys, or the problems that refuse it (one line per bad entry, never the key itself). */
export interface PinnedKeyParse {
  keys: PinnedKey[]
  problems: string[]
}

const DID_PATTERN = /^did:[a-z0-9]+:[A-Za-z0-9._:%-]+$/
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/
const WINDOW = /^(\d{0,12})\.\.(\d{0,12})$/

/** Parses CONTROL_PLANE_PINNED_KEYS. Pure. */
export function parsePinnedKeys(value: string): PinnedKeyParse {
  const keys: PinnedKey[] = []
  const problems: string[] = []
  const entries = value
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0)
  entries.forEach((entry, index) => {
    const label = `CONTROL_PLANE_PINNED_KEYS entry ${index + 1}`
    const equals = entry.indexOf('=')
    if (equals <= 0) {
      problems.push(`${label} must have the form <did>=<base64 key>[:algorithm][:from..until]`)
      return
    }
    const did = entry.slice(0, equals)
    if (!DID_PATTERN.test(did)) {
      problems.push(`${label} does not start with a DID`)
      return
    }
    const [keyText = '', ...options] = entry.slice(equals + 1).split(':')
    let algorithm: PinnedAlgorithm = 'ed25519'
    let validFrom: number | undefined
    let validUntil: number | undefined
    let isValid = true
    for (const option of options) {
      const window = WINDOW.exec(option)
      if (option === 'ed25519' || option === 'ecdsa-p256') algorithm = option
      else if (window !== null && (window[1] !== '' || window[2] !== '')) {
        validFrom = window[1] === '' ? undefined : Number(window[1])
        validUntil = window[2] === '' ? undefined : Number(window[2])
        if (validFrom !== undefined && validUntil !== undefined && validUntil <= validFrom) {
          problems.push(`${label} has an empty validity window`)
          isValid = false
        }
      } else {
        problems.push(`${label} has an unknown option (expected ed25519, ecdsa-p256 or <from>..<until>)`)
        isValid = false
      }
    }
    const publicKey = BASE64.test(keyText) ? new Uint8Array(Buffer.from(keyText, 'base64')) : undefined
    const lengthOk =
      publicKey !== undefined &&
      (algorithm === 'ed25519'
        ? publicKey.length === 32
        : (publicKey.length === 33 && (publicKey[0] === 2 || publicKey[0] === 3)) ||
          (publicKey.length === 65 && publicKey[0] === 4))
    if (!lengthOk) {
      problems.push(
        `${label} key must be base64 of ${algorithm === 'ed25519' ? 'the raw 32-byte Ed25519 key' : 'a SEC1 P-256 point'}`,
      )
      isValid = false
    }
    if (isValid && publicKey !== undefined) keys.push({ did, algorithm, publicKey, validFrom, validUntil })
  })
  return { keys, problems }
}

/** The in-memory key directory; `replace` swaps it atomically (POST /admin/pinned-keys/reload). */
export interface PinnedKeyDirectory {
  /** The key of `did` valid at `nowSeconds` (the first listed when windows overlap), or undefined. */
  find(did: string, nowSeconds: number): PinnedKey | undefined
  replace(keys: readonly PinnedKey[]): void
  count(): number
  /** Every pinned key, in the variable's order (public material only: GET /admin/pinned-keys). */
  list(): readonly PinnedKey[]
}

export function createPinnedKeyDirectory(initial: readonly PinnedKey[]): PinnedKeyDirectory {
  let byDid = index(initial)
  let all: readonly PinnedKey[] = [...initial]
  let size = initial.length
  return {
    find(did, nowSeconds) {
      return byDid
        .get(did)
        ?.find(
          (key) =>
            (key.validFrom === undefined || nowSeconds >= key.validFrom) &&
            (key.validUntil === undefined || nowSeconds < key.validUntil),
        )
    },
    replace(keys) {
      // One assignment each: a concurrent lookup sees either the old or the new directory, never a mix.
      byDid = index(keys)
      all = [...keys]
      size = keys.length
    },
    count: () => size,
    list: () => all,
  }
}

function index(keys: readonly PinnedKey[]): Map<string, PinnedKey[]> {
  const map = new Map<string, PinnedKey[]>()
  for (const key of keys) map.set(key.did, [...(map.get(key.did) ?? []), key])
  return map
}
