/**
 * Our witness identity (RFC-ACDP-0015 §5, §9): the dedicated Ed25519 assertionMethod key (never the JWKS key),
 * the cosignatures it mints, and the documents that publish it (`/.well-known/did.json`,
 * `/.well-known/acdp-witness.json`).
 */
import {
  cosignCheckpoint,
  ed25519PublicKeyFromSeed,
  encodeMultibaseKey,
  type LogCheckpoint,
  type LogCosignature,
  type SigningKey,
} from '@acdp/protocol'
import type { WitnessConfig } from '../core/config.js'

/** The witness profile name (RFC-ACDP-0015 §10). */
export const WITNESS_PROFILE = 'acdp-log-witness'
/** Where our cosignatures are served (RFC-ACDP-0015 §6.2). */
export const COSIGNATURE_ENDPOINT = '/log/witness'

export interface WitnessIdentity {
  readonly witnessId: string
  readonly keyId: string
  /** RFC-ACDP-0015 §7 step 3: cosigns a checkpoint the caller verified and found consistent. */
  cosign(checkpoint: LogCheckpoint, witnessedAt: Date): LogCosignature
  /** The DID document publishing the single active assertionMethod key. */
  didDocument(): Record<string, unknown>
  /** The advisory witness capabilities document. */
  capabilities(coveredLogs: readonly string[]): Record<string, unknown>
}

/** Builds the identity from WITNESS_ID / WITNESS_KEY_ID / WITNESS_SIGNING_PRIVATE_KEY_PEM (validated by config). */
export function createWitnessIdentity(cosigning: WitnessConfig['cosigning']): WitnessIdentity {
  if (cosigning.privateKeySeed === undefined || cosigning.witnessId === '') {
    throw new TypeError('createWitnessIdentity needs WITNESS_ID and a signing key')
  }
  const key: SigningKey = { algorithm: 'ed25519', keyId: cosigning.keyId, privateKey: cosigning.privateKeySeed }
  const publicKey = ed25519PublicKeyFromSeed(cosigning.privateKeySeed)
  const { witnessId, keyId } = cosigning
  return {
    witnessId,
    keyId,
    cosign(checkpoint, witnessedAt) {
      return cosignCheckpoint({ checkpoint, witnessId, witnessedAt, key })
    },
    didDocument() {
      return {
        '@context': ['https://www.w3.org/ns/did/v1', 'https://w3id.org/security/suites/ed25519-2020/v1'],
        id: witnessId,
        verificationMethod: [
          {
            id: keyId,
            type: 'Ed25519VerificationKey2020',
            controller: witnessId,
            publicKeyMultibase: encodeMultibaseKey({ algorithm: 'ed25519', publicKey }),
          },
        ],
        assertionMethod: [keyId],
      }
    },
    capabilities(coveredLogs) {
      return {
        witness_id: witnessId,
        profiles: [WITNESS_PROFILE],
        covered_logs: [...coveredLogs],
        cosignature_endpoint: COSIGNATURE_ENDPOINT,
      }
    },
  }
}
