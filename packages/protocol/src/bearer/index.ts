// Public surface of bearer/: re-exports only.
export type { TokenGuardFault, TokenGuardInput } from './token-claims-guard.js'
export { findTokenGuardFault } from './token-claims-guard.js'
