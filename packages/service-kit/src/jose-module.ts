/**
 * The `jose` library, imported on first use. Token issuance and verification are off unless configured, and an
 * idle instance without them should not hold jose's ≈ 1.5 MB of loaded code (docs/performance/journal.md "Idle memory").
 * The first JWT this instance signs or checks pays the import once; every later call gets the same module.
 */
type JoseModule = typeof import('jose')

let loading: Promise<JoseModule> | undefined

export function loadJose(): Promise<JoseModule> {
  loading ??= import('jose')
  return loading
}
