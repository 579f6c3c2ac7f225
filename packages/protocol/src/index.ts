/**
 * @acdp/protocol — the ACDP protocol as a library. Everything byte-exact (canonical JSON, hashes,
 * signing inputs, Merkle math, receipts, cosignatures, webhook HMAC) lives here once; the services
 * import it and never re-implement it. No HTTP-server code lives in this package.
 */

export * from './bearer/index.js'
export * from './checkpoint/index.js'
export * from './cosignature/index.js'
export * from './did/index.js'
export * from './errors.js'
export * from './hash/index.js'
export * from './jcs/index.js'
export * from './keys/index.js'
export * from './lifecycle/index.js'
export * from './merkle/index.js'
export * from './outbound/index.js'
export * from './receipt/index.js'
export * from './revocation/index.js'
export * from './sdk/index.js'
export * from './signature/index.js'
export * from './webhook/index.js'
export * from './wire/index.js'
