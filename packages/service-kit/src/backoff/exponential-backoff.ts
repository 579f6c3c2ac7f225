/**
 * The pieces of a retry delay both servers' webhook senders use: a delay doubling per step up to a cap, and a
 * jitter fraction drawn from the injected random source (so tests can fix it), which each sender applies in its
 * own range.
 */

/** Beyond this many doublings every delay is at its cap (and 2^step stays a finite number). */
const MAX_DOUBLINGS = 64

/** min(capMs, baseMs · 2^step): step 0 is the base. */
export function cappedExponentialMs(baseMs: number, step: number, capMs: number): number {
  return Math.min(capMs, baseMs * 2 ** Math.min(step, MAX_DOUBLINGS))
}

/** A uniform fraction in [0, 1) in steps of 1/65536, from two bytes of `random`. */
export function jitterFraction(random: (byteLength: number) => Uint8Array): number {
  const bytes = random(2)
  return ((bytes[0] ?? 0) * 256 + (bytes[1] ?? 0)) / 65536
}
