/** `did:key:z6MkhaXg…4vH2`: enough to tell agents apart in a DAG node; the full DID goes in the node's tooltip. */
export function shortDid(did: string): string {
  if (did.length <= 28) return did
  const method = /^did:[a-z0-9]+:/.exec(did)?.[0] ?? ''
  const rest = did.slice(method.length)
  return `${method}${rest.slice(0, 8)}…${rest.slice(-4)}`
}
