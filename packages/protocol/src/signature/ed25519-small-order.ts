/**
 * The Ed25519 encodings a strict verifier must refuse for A (public key) and R, derived here from
 * the curve equation instead of pasted as hex, so a reviewer can check them.
 *
 * Curve: -x² + y² = 1 + d·x²·y² over GF(p), p = 2²⁵⁵ − 19, d = −121665/121666 (RFC 8032 §5.1).
 * Its torsion subgroup has exactly 8 points (cofactor 8):
 * - order 1: (0, 1)        order 2: (0, −1)        order 4: (±√−1, 0)
 * - order 8: the four points P with 2P of order 4. Doubling gives y(2P) = (x² + y²)/(2 − y² + x²)
 *   using the curve equation, so y(2P) = 0 ⇔ x² = −y². Substituting into the curve equation gives
 *   d·y⁴ + 2y² − 1 = 0, i.e. y² = (−1 ± √(1 + d))/d; exactly one sign gives a square, whose two
 *   roots ±y each pair with x = ±√−1·y.
 * So the small-order y values are {1, p−1, 0, y₈, p−y₈}.
 *
 * An encoding is 32 bytes: y little-endian with the sign of x in bit 255 (RFC 8032 §5.1.2).
 * Decoders that reduce y mod p also accept y + p when y + p < 2²⁵⁵ (only y ∈ [0, 18]), and "x = 0
 * with sign bit 1" spellings of (0, ±1). All of these are listed: for each small-order y, both
 * y and y + p (when it fits) with both sign bits → 14 encodings for the 8 points.
 */

const P = 2n ** 255n - 19n
const D = mod(-121665n * invert(121666n))
const SQRT_M1 = pow(2n, (P - 1n) / 4n)

function mod(a: bigint): bigint {
  const r = a % P
  return r >= 0n ? r : r + P
}

function pow(base: bigint, exponent: bigint): bigint {
  let result = 1n
  let b = mod(base)
  let e = exponent
  while (e > 0n) {
    if (e & 1n) result = (result * b) % P
    b = (b * b) % P
    e >>= 1n
  }
  return result
}

function invert(a: bigint): bigint {
  return pow(a, P - 2n)
}

/** Square root mod p (p ≡ 5 mod 8, Atkin's method), or null when `a` is not a square. */
function sqrt(a: bigint): bigint | null {
  const candidate = pow(a, (P + 3n) / 8n)
  if (mod(candidate * candidate) === mod(a)) return candidate
  const twisted = mod(candidate * SQRT_M1)
  if (mod(twisted * twisted) === mod(a)) return twisted
  return null
}

function order8Y(): bigint {
  const root = sqrt(mod(1n + D))
  if (root === null) throw new Error('1 + d must be a square on edwards25519')
  for (const numerator of [mod(-1n + root), mod(-1n - root)]) {
    const y = sqrt(mod(numerator * invert(D)))
    if (y !== null) return y
  }
  throw new Error('no order-8 point found')
}

function encode(y: bigint, signBit: boolean): Uint8Array {
  const bytes = new Uint8Array(32)
  let rest = y
  for (let i = 0; i < 32; i++) {
    bytes[i] = Number(rest & 0xffn)
    rest >>= 8n
  }
  if (signBit) bytes[31] = (bytes[31] as number) | 0x80
  return bytes
}

const y8 = order8Y()

/** The y coordinates of the 8 small-order points: identity, order 2, order 4, order 8 (two values). */
export const SMALL_ORDER_Y_VALUES: readonly bigint[] = [1n, P - 1n, 0n, y8, P - y8]

/** Every 32-byte encoding (canonical or not) of a small-order point, 14 in all. */
export const SMALL_ORDER_ENCODINGS: readonly Uint8Array[] = SMALL_ORDER_Y_VALUES.flatMap((y) => {
  const spellings = y + P < 2n ** 255n ? [y, y + P] : [y]
  return spellings.flatMap((spelled) => [encode(spelled, false), encode(spelled, true)])
})

const SMALL_ORDER_HEX: ReadonlySet<string> = new Set(SMALL_ORDER_ENCODINGS.map((e) => Buffer.from(e).toString('hex')))
const SMALL_ORDER_FIRST_BYTES = new Uint8Array(256)
for (const encoding of SMALL_ORDER_ENCODINGS) SMALL_ORDER_FIRST_BYTES[encoding[0] as number] = 1

/** True when the 32 bytes at `offset` of `bytes` encode a small-order point (any spelling). */
export function isSmallOrderEncoding(bytes: Uint8Array, offset = 0): boolean {
  // Cheap first-byte filter; only the rare candidates pay for the hex lookup.
  if (SMALL_ORDER_FIRST_BYTES[bytes[offset] as number] !== 1) return false
  return SMALL_ORDER_HEX.has(Buffer.from(bytes.buffer, bytes.byteOffset + offset, 32).toString('hex'))
}

/** True when the y encoded at `offset` (sign bit ignored) is ≥ p, i.e. the encoding is not canonical. */
export function isNonCanonicalY(bytes: Uint8Array, offset = 0): boolean {
  // y ≥ p = 2²⁵⁵ − 19 ⇔ bytes 1..30 are 0xff, byte 31 without its sign bit is 0x7f, byte 0 ≥ 0xed.
  if (((bytes[offset + 31] as number) & 0x7f) !== 0x7f) return false
  for (let i = 30; i >= 1; i--) if (bytes[offset + i] !== 0xff) return false
  return (bytes[offset] as number) >= 0xed
}
