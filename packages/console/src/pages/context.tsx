/**
 * One context by ctx_id (`#/contexts/<ctx_id>`): the inspector on a page of its own, so any context — in a run or
 * not — can be opened from a link or the header's lookup box. Keyed by ctx_id by the shell, so nothing of the
 * previous context survives a route change.
 */
import { ContextInspector } from '../components/context-inspector.js'

export function ContextPage({ ctxId }: { ctxId: string }) {
  return (
    <>
      <h1>Context</h1>
      <ContextInspector ctxId={ctxId} />
    </>
  )
}
