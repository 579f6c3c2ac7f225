/** The registry's own DID, which signs its receipts, checkpoints and tokens. */

/** `did:web:<authority>` (RFC-ACDP-0007 §3.1; `%3A` would encode a port, never needed for a bare hostname). */
export function registryDidOf(authority: string): string {
  return `did:web:${authority}`
}
