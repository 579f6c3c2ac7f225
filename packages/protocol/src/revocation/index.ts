// Public surface of revocation/: re-exports only.
export {
  type CompromiseBoundaryInput,
  type CompromiseBoundaryVerdict,
  evaluateCompromiseBoundary,
  selectEffectiveCompromisedSince,
} from './compromise-boundary.js'
export {
  assertRevocationNotSelfSigned,
  KEY_REVOCATION_TYPES,
  type KeyRevocation,
  type KeyRevocationBody,
  parseKeyRevocation,
  type RevocationTrustClass,
} from './key-revocation.js'
