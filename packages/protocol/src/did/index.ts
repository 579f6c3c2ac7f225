// Public surface of did/: re-exports only.
export { parseDidDocument, VERIFICATION_METHOD_ALGORITHMS } from './did-document.js'
export { decodeMultibaseKey, didKeyKeyId, encodeDidKey, encodeMultibaseKey, parseDidKey } from './did-key.js'
export { didWebToUrl } from './did-web.js'
export { isDidWebOnlyVersion } from './producer-version.js'
export { assertDidSyntax, didMethodOf, MAX_DID_LENGTH, splitKeyId } from './key-id.js'
export {
  DEFAULT_DID_CACHE_TTL_MS,
  DEFAULT_FAILURE_CACHE_MS,
  DEFAULT_MAX_DID_ENTRIES,
  DEFAULT_MIN_REFETCH_INTERVAL_MS,
  type DidMethod,
  DidResolver,
  type DidResolverOptions,
  type FetchDidDocument,
  MAX_DID_CACHE_TTL_MS,
  MAX_DID_DOCUMENT_BYTES,
  MIN_DID_CACHE_TTL_MS,
  type ResolvedKey,
} from './resolver.js'
