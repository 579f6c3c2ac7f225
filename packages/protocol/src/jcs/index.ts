// Public surface of jcs/: re-exports only.
export { canonicalBytes, canonicalize, MAX_CANONICALIZE_DEPTH } from './canonicalize.js'
export { DEFAULT_MAX_JSON_DEPTH, type ParseJsonStrictOptions, parseJsonStrict } from './parse-json-strict.js'
