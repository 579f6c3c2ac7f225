/** A ctx_id shown (shortened when long) as a link to its context page, so every context in the console opens. */
import { href } from '../router.js'
import { Truncated } from './ui.js'

export function ContextLink({ ctxId, max }: { ctxId: string | null; max?: number }) {
  if (ctxId === null) return <span class="muted">—</span>
  return (
    <a href={href('contexts', ctxId)} class="ctx-link" data-ctx-link={ctxId}>
      <Truncated value={ctxId} {...(max === undefined ? {} : { max })} />
    </a>
  )
}
