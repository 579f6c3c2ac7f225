// Public surface of bearer/: re-exports only.
export type { TokenGuardFault, TokenGuardInput } from './token-claims-guard.js'
export { findTokenGuardFault } from './token-claims-guard.js'
export { TOKEN_REVOKE_REASONS, type TokenRevokeReason } from './revoke-reasons.js'
