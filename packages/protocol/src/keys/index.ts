// Public surface of keys/: re-exports only.
export { compressP256PublicKey, decompressP256PublicKey } from './p256-point.js'
