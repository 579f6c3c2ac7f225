/**
 * The registry's receipt signing key (RFC-ACDP-0010 §2, §9): a dedicated Ed25519 key — never the JWT key —
 * that signs receipts, lineage-head receipts and log checkpoints, plus the retired keys that must stay
 * verifiable forever. Loaded once at startup from `[receipt]`; the seed never leaves this object.
 */
import { readFileSync } from 'node:fs'
import { ed25519PublicKeyFromSeed, type SigningKey } from '@acdp/protocol'
import { decodeStrictBase64, type RegistryConfig } from '../core/config.js'
import { registryDidOf } from '../core/registry-did.js'

export interface ReceiptKeyring {
  /** The current key: in the DID document's `verificationMethod` and `assertionMethod`. */
  readonly signingKey: SigningKey
  readonly publicKey: Uint8Array
  /** Retired keys: `verificationMethod` only, so receipts they signed stay verifiable (§9). */
  readonly retired: ReadonlyArray<{ keyId: string; publicKey: Uint8Array }>
}

/**
 * Builds the keyring from a validated configuration, or undefined when no receipt key is configured.
 * `signing_key_path` names a file holding the seed as base64 text or as exactly 32 raw bytes.
 * Throws Error (one line, naming the key) when the file cannot be read or holds no 32-byte seed.
 */
export function loadReceiptKeyring(config: RegistryConfig): ReceiptKeyring | undefined {
  const { receipt } = config
  if (receipt.signing_key_seed_b64 === '' && receipt.signing_key_path === '') return undefined
  const seed =
    receipt.signing_key_seed_b64 !== ''
      ? decodeStrictBase64(receipt.signing_key_seed_b64)
      : readSeedFile(receipt.signing_key_path)
  if (seed === undefined || seed.byteLength !== 32) {
    throw new Error('receipt: the signing key is not a 32-byte Ed25519 seed (base64 text or 32 raw bytes)')
  }
  const did = registryDidOf(config.registry.authority)
  const privateKey = new Uint8Array(seed)
  return {
    signingKey: { algorithm: 'ed25519', keyId: `${did}#${receipt.key_id_fragment}`, privateKey },
    publicKey: ed25519PublicKeyFromSeed(privateKey),
    retired: receipt.retired_keys.map((k) => ({
      keyId: `${did}#${k.key_id_fragment}`,
      publicKey: new Uint8Array(decodeStrictBase64(k.public_key_b64) ?? []),
    })),
  }
}

function readSeedFile(path: string): Buffer | undefined {
  let raw: Buffer
  try {
    raw = readFileSync(path)
  } catch (cause) {
    throw new Error(`receipt.signing_key_path: cannot be read (${(cause as NodeJS.ErrnoException).code ?? 'error'})`, {
      cause,
    })
  }
  if (raw.byteLength === 32) return raw
  return decodeStrictBase64(raw.toString('utf8'))
}

/**
 * The registry DID document (RFC-ACDP-0010 §9) served at `/.well-known/did.json`: every receipt key in
 * `verificationMethod`, only the current one in `assertionMethod`.
 */
export function buildRegistryDidDocument(authority: string, keyring: ReceiptKeyring): Record<string, unknown> {
  const did = registryDidOf(authority)
  const method = (keyId: string, publicKey: Uint8Array) => ({
    id: keyId,
    type: 'JsonWebKey2020',
    controller: did,
    publicKeyJwk: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(publicKey).toString('base64url') },
  })
  return {
    '@context': ['https://www.w3.org/ns/did/v1', 'https://w3id.org/security/suites/jws-2020/v1'],
    id: did,
    verificationMethod: [
      method(keyring.signingKey.keyId, keyring.publicKey),
      ...keyring.retired.map((k) => method(k.keyId, k.publicKey)),
    ],
    assertionMethod: [keyring.signingKey.keyId],
  }
}
