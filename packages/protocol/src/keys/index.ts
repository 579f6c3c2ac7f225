// Public surface of keys/: re-exports only.
export { computeKeyFingerprint } from './fingerprint.js'
export { compressP256PublicKey, decompressP256PublicKey } from './p256-point.js'
export { normalizePublicKey, type PublicKeyMaterial } from './public-key.js'
