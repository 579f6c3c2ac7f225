/** Whether an address the HTTP transport is asked to bind is loopback (reachable from this machine only). */
import { isIP } from 'node:net'

export function isLoopbackHost(host: string): boolean {
  const bare = host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host
  if (bare === 'localhost') return true
  if (isIP(bare) === 4) return bare.startsWith('127.')
  if (isIP(bare) === 6) return bare === '::1' || /^::ffff:127\./i.test(bare)
  return false
}
