/**
 * The dev stack's trust layer: the registry mints receipts (RFC-ACDP-0010) and lineage-head receipts
 * (RFC-ACDP-0011), keeps a transparency log (RFC-ACDP-0012) and runs lifecycle (RFC-ACDP-0013); the control plane
 * witnesses that log and cosigns it (RFC-ACDP-0015), and the registry collects and serves the cosignatures.
 *
 * The witness identity is a did:key derived from the dev witness seed: every verifier (the registry collecting
 * cosignatures, `acdp get --verify`, the SDK, the console) resolves it without a fetch, where a did:web on
 * loopback would need https on a port-less host that nothing serves. The registry keeps its did:web:localhost
 * identity; verifiers read its DID document from the registry URL they were given (docs/dev-stack.md).
 */
import { createPrivateKey, createPublicKey } from 'node:crypto'
import { didKeyKeyId, encodeDidKey } from '@acdp/protocol'
import { type DevSecrets, seedAsBase64 } from './dev-secrets.js'

/** How often the witness polls the registry's log and the registry polls the witness, in seconds. */
export const DEV_WITNESS_POLL_SECONDS = 2

/** PKCS#8 DER prefix of an Ed25519 private key (RFC 8410): the 32-byte seed follows. */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex')

/** The control plane's witness identity in the dev stack. */
export interface DevWitnessIdentity {
  did: string
  keyId: string
  /** The witness key as PKCS#8 PEM (WITNESS_SIGNING_PRIVATE_KEY_PEM); never printed. */
  privateKeyPem: string
}

/** The did:key witness identity of a 32-byte seed (base64url, as dev-secrets.json keeps it). */
export function devWitnessIdentity(seed: string): DevWitnessIdentity {
  const privateKey = createPrivateKey({
    key: Buffer.concat([ED25519_PKCS8_PREFIX, Buffer.from(seed, 'base64url')]),
    format: 'der',
    type: 'pkcs8',
  })
  const x = createPublicKey(privateKey).export({ format: 'jwk' }).x as string
  const did = encodeDidKey({ algorithm: 'ed25519', publicKey: new Uint8Array(Buffer.from(x, 'base64url')) })
  return {
    did,
    keyId: didKeyKeyId(did),
    privateKeyPem: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(),
  }
}

/** The registry's trust-layer settings (merged into its resolveConfig input). */
export function registryTrustSettings(secrets: DevSecrets, witness: DevWitnessIdentity, controlPlaneUrl: string) {
  return {
    receipt: { signing_key_seed_b64: seedAsBase64(secrets.receipt_key_seed), head_receipts: true },
    log: { enabled: true },
    lifecycle: { enabled: true },
    witnesses: [{ did: witness.did, url: `${controlPlaneUrl}/log/witness`, poll_seconds: DEV_WITNESS_POLL_SECONDS }],
  }
}

/** The control plane's log-witness and cosigning settings (environment names of its loadConfig). */
export function controlPlaneWitnessEnv(witness: DevWitnessIdentity): Record<string, string> {
  return {
    LOG_WITNESS_ENABLED: 'true',
    LOG_WITNESS_INTERVAL_SECONDS: String(DEV_WITNESS_POLL_SECONDS),
    WITNESS_COSIGNING_ENABLED: 'true',
    WITNESS_ID: witness.did,
    WITNESS_KEY_ID: witness.keyId,
    WITNESS_SIGNING_PRIVATE_KEY_PEM: witness.privateKeyPem,
  }
}
