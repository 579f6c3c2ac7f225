// Public surface of sdk/: re-exports only.
export {
  buildDidWebDocument,
  type CreateProducerKeyOptions,
  createProducerKey,
  DEFAULT_DID_WEB_KEY_FRAGMENT,
} from './create-producer-key.js'
export { type FetchedContext, fetchContext } from './fetch-context.js'
export {
  completeProducerContent,
  createProducer,
  type Producer,
  type ProducerOptions,
  type PublishOptions,
  type PublishResponseBody,
  type PublishResult,
  SDK_ACDP_VERSION,
} from './producer.js'
export { formatKeyFile, type KeyFileDocument, type ProducerKey, parseKeyFile } from './producer-key.js'
export { type BuildPublishRequestInput, buildPublishRequest, type SignedPublishRequest } from './publish-request.js'
export { DEFAULT_SDK_TIMEOUT_MS, MAX_SDK_RESPONSE_BYTES, type SdkRequestOptions } from './registry-http.js'
export { applyRequirement, type EvidenceRequirement } from './evidence-requirement.js'
export {
  applyProfiles,
  EVIDENCE_PROFILES,
  fetchRegistryProfiles,
  readAdvertisedProfiles,
  type RegistryProfiles,
} from './registry-profiles.js'
export { type StageState, type VerificationStage } from './verification-stage.js'
export { missingStages, summarizeStages } from './verification-summary.js'
export { type DataRefOptions, dataRefStageName, embeddedBytes, verifyDataRefs } from './verify-data-refs.js'
export { type EvidenceInput, type EvidenceOptions, type EvidenceResult, verifyEvidence } from './verify-evidence.js'
export {
  type EnvelopeCheck,
  EVIDENCE_MEMBERS,
  type KeyResolver,
  type VerificationCheck,
  type VerificationReport,
  type VerifyContextOptions,
  verifyContext,
} from './verify-context.js'
export { fetchThroughOutbound } from './outbound-fetch.js'
export { findProducerRevocations, type RevocationLookup } from './producer-revocations.js'
export { createProfileLookup, type ProfileLookup, type ProfileLookupOptions } from './profile-lookup.js'
export {
  createRegistryJsonReader,
  MAX_REGISTRY_JSON_BYTES,
  type RegistryAnswer,
  type RegistryJsonReader,
  type RegistryJsonReaderOptions,
} from './registry-json.js'
export {
  type EvidenceVerification,
  type VerifyWithEvidenceOptions,
  verifyWithEvidence,
} from './verify-with-evidence.js'
export {
  type CompleteWalk,
  type NodeTarget,
  type TruncatedWalk,
  type VerifyNode,
  type WalkDerivedFromOptions,
  type WalkedNode,
  type WalkFailure,
  type WalkResult,
  type WalkTimers,
  type WalkTruncation,
  walkDerivedFrom,
} from './walk-derived-from.js'
export {
  resolveWalkControls,
  WALK_DEFAULTS,
  type WalkAbortReason,
  type WalkControl,
  type WalkControls,
} from './walk-controls.js'
