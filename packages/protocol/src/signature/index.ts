// Public surface of signature/: re-exports only.
export {
  isSignatureAlgorithm,
  SIGNATURE_ALGORITHMS,
  SIGNATURE_BASE64_LENGTH,
  SIGNATURE_LENGTH,
  type SignatureAlgorithm,
} from './algorithm.js'
export { decodeBase64Strict, encodeBase64 } from './base64.js'
export {
  type SignContentHashInput,
  signContentHash,
  signContentHashAsync,
  type VerifyContentSignatureInput,
  verifyContentSignature,
  verifyContentSignatureAsync,
} from './content-signature.js'
export { p256PublicKeyFromPrivate, signEcdsaP256, verifyEcdsaP256 } from './ecdsa-p256.js'
export {
  type Ed25519Weakness,
  ed25519PublicKeyFromSeed,
  signEd25519Async,
  findEd25519Weakness,
  signEd25519,
  verifyEd25519,
  verifyEd25519Async,
} from './ed25519.js'
export { isNonCanonicalY, isSmallOrderEncoding, SMALL_ORDER_ENCODINGS } from './ed25519-small-order.js'
export { type GeneratedSigningKey, generateSigningKey } from './generate-signing-key.js'
