/** Previous and next versions of a context (inspector/supersession.ts), each a link to its context page. */
import type { Neighbour, Neighbours } from '../../inspector/supersession.js'
import { ContextLink } from '../context-link.js'

function Version({ neighbour, none }: { neighbour: Neighbour; none: string }) {
  if (neighbour.kind === 'none') return <span class="muted">{none}</span>
  if (neighbour.kind === 'unknown') return <span class="muted">unknown: {neighbour.why}</span>
  return (
    <>
      {neighbour.version !== null && <>v{neighbour.version} </>}
      <ContextLink ctxId={neighbour.ctxId} max={40} />
    </>
  )
}

export function SupersessionLinks({ neighbours }: { neighbours: Neighbours }) {
  return (
    <section aria-labelledby="supersession-heading" class="inspector-block">
      <h3 id="supersession-heading">Supersession</h3>
      <dl class="facts">
        <dt>Previous version</dt>
        <dd
          data-previous={neighbours.previous.kind === 'version' ? neighbours.previous.ctxId : neighbours.previous.kind}
        >
          <Version neighbour={neighbours.previous} none="none: this is the first version" />
        </dd>
        <dt>Next version</dt>
        <dd data-next={neighbours.next.kind === 'version' ? neighbours.next.ctxId : neighbours.next.kind}>
          <Version neighbour={neighbours.next} none="none: no version supersedes this one" />
        </dd>
      </dl>
    </section>
  )
}
