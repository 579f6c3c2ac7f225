/**
 * API-key credentials (product spec "Authentication": AUTH_API_KEYS, AUTH_ADMIN_API_KEYS, TENANT_API_KEYS).
 *
 * Keys are hashed once at boot and only digests are kept. A presented key is hashed and compared against
 * every stored digest with `timingSafeEqual`, without stopping at the first match, so neither the comparison
 * nor the position of the key in the list shows in the response time.
 */
import { timingSafeEqual } from 'node:crypto'
import { sha256 } from '@acdp/protocol'
import type { ControlPlaneConfig } from '../core/config.js'
import { type CredentialVerifier, looksLikeJwt, type Principal } from './credentials.js'

interface KeyEntry {
  digest: Buffer
  isAdmin: boolean
  boundTenant: string | undefined
  actorId: string
}

/** Domain-separates key digests from every other SHA-256 use in the service. */
function digestKey(key: string): Buffer {
  return Buffer.from(sha256(`acdp-control-plane-api-key:${key}`))
}

/**
 * Builds the API-key verifier from the configured keys. It claims every credential that is not JWT-shaped.
 * A key listed in several variables gets the union of its rights (admin) and its tenant binding.
 */
export function createApiKeyVerifier(auth: ControlPlaneConfig['auth']): CredentialVerifier {
  const entries = new Map<string, KeyEntry>()
  const entryFor = (key: string): KeyEntry => {
    let entry = entries.get(key)
    if (entry === undefined) {
      const digest = digestKey(key)
      entry = { digest, isAdmin: false, boundTenant: undefined, actorId: `key:${digest.toString('hex').slice(0, 12)}` }
      entries.set(key, entry)
    }
    return entry
  }
  for (const key of auth.apiKeys) entryFor(key)
  for (const key of auth.adminApiKeys) entryFor(key).isAdmin = true
  for (const { key, tenantId } of auth.tenantApiKeys) entryFor(key).boundTenant = tenantId
  // Only digests outlive this function.
  const table = [...entries.values()]

  return {
    claims: (credential) => !looksLikeJwt(credential),
    async verify(credential): Promise<Principal | undefined> {
      const presented = digestKey(credential)
      let match: KeyEntry | undefined
      for (const entry of table) {
        if (timingSafeEqual(entry.digest, presented) && match === undefined) match = entry
      }
      if (match === undefined) return undefined
      return {
        kind: 'api_key',
        actorId: match.actorId,
        isAdmin: match.isAdmin,
        boundTenant: match.boundTenant,
        mayAssertTenant: true,
      }
    },
  }
}
