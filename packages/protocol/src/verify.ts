/**
 * @acdp/protocol/verify — the verification half of the protocol for consumers that must not load Node-only code: a
 * browser (the console checks contexts itself instead of trusting the server) or any other bundle. It re-exports the
 * same functions the services use; nothing byte-exact is re-implemented. Under a bundler that honours package.json
 * "browser" (Vite, rolldown, esbuild, webpack), the three platform files (`hash/sha256-platform`,
 * `signature/ed25519-platform`, `signature/ecdsa-p256-platform`) are swapped for their @noble twins; everything
 * above them (JCS, exclusion set, signing inputs, strictness rules, receipt and Merkle procedures) is shared code.
 *
 * The modules reached from here use the `Buffer` global for hex and base64; a browser bundle installs a Buffer
 * polyfill before importing this entry.
 */
export { verifyLogInclusion } from './checkpoint/verify-log-proofs.js'
export { type CheckpointVerificationContext } from './checkpoint/verify-checkpoint.js'
export { verifyCosignature } from './cosignature/verify-cosignature.js'
export { parseDidKey } from './did/did-key.js'
export { splitKeyId } from './did/key-id.js'
export { DidResolver, type ResolvedKey } from './did/resolver.js'
export { isProtocolError, ProtocolError } from './errors.js'
export { computeContentHash } from './hash/content-hash.js'
export { sha256String } from './hash/sha256.js'
export { canonicalize } from './jcs/canonicalize.js'
export type { PublicKeyMaterial } from './keys/public-key.js'
export { computeLogLeafHash } from './merkle/log-leaf.js'
export { verifyLineageHeadReceipt } from './receipt/lineage-head-receipt.js'
export { verifyRegistryReceipt } from './receipt/registry-receipt.js'
export { type EvidenceRequirement } from './sdk/evidence-requirement.js'
export { findProducerRevocations, type RevocationLookup } from './sdk/producer-revocations.js'
export type { RegistryAnswer, RegistryJsonReader } from './sdk/registry-json.js'
export { readAdvertisedProfiles, type RegistryProfiles } from './sdk/registry-profiles.js'
export type { KeyRevocation } from './revocation/key-revocation.js'
export { type StageState, type VerificationStage } from './sdk/verification-stage.js'
export { type DataRefOptions, verifyDataRefs } from './sdk/verify-data-refs.js'
export {
  EVIDENCE_MEMBERS,
  type EnvelopeCheck,
  type KeyResolver,
  type VerificationCheck,
  type VerificationReport,
  verifyContext,
} from './sdk/verify-context.js'
export { verifyEd25519 } from './signature/ed25519.js'
// Wire constants the console needs (plain strings: no schema compiler is pulled in by them).
export { CTX_ID_PATTERN } from './wire/common.js'
export type { RevocationFeedEntry, RevocationFeedPage } from './wire/revocation-feed.js'
export { WEBHOOK_EVENT_HEADER_NAMES, type WebhookEventType } from './wire/webhook-events.js'
