/**
 * Trust-layer test helpers: a registry configuration with receipts, head receipts and the log on, and a key
 * resolver that reads the registry's own `/.well-known/did.json` through `app.inject` (the real DID pipeline).
 */
import { DidResolver, type ResolveVerificationKey } from '@acdp/protocol'
import type { FastifyInstance } from 'fastify'
import type { RegistryConfigInput } from '../../src/core/config.js'

/** The rcpt-001 / log-001 registry test seed (32 × 0x11). TEST ONLY. */
export const TEST_RECEIPT_SEED_B64 = Buffer.alloc(32, 0x11).toString('base64')

export const TRUST_CONFIG: RegistryConfigInput = {
  receipt: { signing_key_seed_b64: TEST_RECEIPT_SEED_B64, head_receipts: true },
  log: { enabled: true, instance: '1' },
}

/** Resolves the registry's receipt keys from the DID document it serves. */
export function registryKeyResolver(app: FastifyInstance): ResolveVerificationKey {
  const resolver = new DidResolver({
    fetchDidDocument: async (url) => {
      const res = await app.inject({ method: 'GET', url: url.pathname })
      return { status: res.statusCode, body: new Uint8Array(res.rawPayload) }
    },
  })
  return (keyId) => resolver.resolveKey(keyId)
}
