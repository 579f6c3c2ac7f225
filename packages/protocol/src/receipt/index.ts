// Public surface of receipt/: re-exports only.
export {
  DEFAULT_MAX_FUTURE_SKEW_MS,
  type ServedContext,
  signLineageHeadReceipt,
  type UnsignedLineageHeadReceipt,
  type VerifiedLineageHeadReceipt,
  type VerifyLineageHeadReceiptInput,
  verifyLineageHeadReceipt,
} from './lineage-head-receipt.js'
export { computeReceiptHash, computeReceiptPreimage } from './receipt-hash.js'
export {
  type ResolveVerificationKey,
  type SigningKey,
  signReceiptHash,
  signReceiptHashAsync,
  verifyReceiptSignature,
} from './receipt-signature.js'
export {
  assertRegistryBinding,
  authorityOfCtxId,
  didOfKeyId,
  hostOfRegistryDid,
  type RegistryBindingInput,
  registryDidForAuthority,
} from './registry-binding.js'
export {
  type MintedRegistryReceipt,
  mintRegistryReceipt,
  mintRegistryReceiptAsync,
  type ReceiptContext,
  signRegistryReceipt,
  signRegistryReceiptAsync,
  type UnsignedRegistryReceipt,
  type VerifiedRegistryReceipt,
  type VerifyRegistryReceiptInput,
  verifyRegistryReceipt,
} from './registry-receipt.js'
