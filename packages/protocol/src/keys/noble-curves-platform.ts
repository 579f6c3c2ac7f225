/**
 * @noble/curves on Node, loaded on first use rather than at import (docs/performance/journal.md "Idle memory (RSS)"):
 * ≈ 1.5 MB of heap for curve arithmetic that Node's crypto does not offer (point validation, P-256 compression,
 * deterministic ECDSA signing) and that a service needs only when it checks, converts or makes such a key, never
 * just to start. Callers are synchronous, so the modules are loaded with `require`, which loads an ES module
 * synchronously on Node 24 (same instance as an `import`). A browser bundle swaps in
 * `noble-curves-platform.browser.ts` (package.json "browser" map), which imports them statically.
 */
import { createRequire } from 'node:module'
import type * as Ed25519Module from '@noble/curves/ed25519.js'
import type * as NistModule from '@noble/curves/nist.js'

const require = createRequire(import.meta.url)
let ed25519: typeof Ed25519Module.ed25519 | undefined
let p256: typeof NistModule.p256 | undefined

/** @noble/curves' Ed25519, loaded on the first call. */
export function nobleEd25519(): typeof Ed25519Module.ed25519 {
  ed25519 ??= (require('@noble/curves/ed25519.js') as typeof Ed25519Module).ed25519
  return ed25519
}

/** @noble/curves' P-256, loaded on the first call. */
export function nobleP256(): typeof NistModule.p256 {
  p256 ??= (require('@noble/curves/nist.js') as typeof NistModule).p256
  return p256
}
