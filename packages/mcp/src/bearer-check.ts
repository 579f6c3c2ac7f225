/**
 * The HTTP transport's bearer check: `Authorization: Bearer <token>` compared in constant time (both sides hashed
 * to the same length first, so neither the token's length nor a prefix leaks through timing).
 */
import { createHash, timingSafeEqual } from 'node:crypto'

export function bearerMatches(header: string | undefined, token: string): boolean {
  const presented = /^Bearer ([^\s]+)$/i.exec(header ?? '')?.[1] ?? ''
  const digest = (value: string) => createHash('sha256').update(value, 'utf8').digest()
  // Compare even when nothing was presented, so a missing header costs what a wrong one does.
  return timingSafeEqual(digest(presented), digest(token)) && presented !== ''
}
