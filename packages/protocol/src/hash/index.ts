// Public surface of hash/: re-exports only.
export { computeContentHash, extractProducerContent, PRODUCER_CONTENT_EXCLUSIONS } from './content-hash.js'
export { deriveLineageId } from './lineage-id.js'
export { formatSha256, isSha256String, parseSha256, sha256, sha256String } from './sha256.js'
