// Public surface of wire/: re-exports only.
export * from './capabilities.js'
export * from './common.js'
export * from './context-body.js'
export * from './data-ref.js'
export * from './publish-request.js'
export * from './publish-response.js'
export * from './registry-error.js'
