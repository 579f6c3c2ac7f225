/**
 * The registry's state of a context (inspector/registry-state.ts): status, version, the lineage (linked to the
 * lineage explorer with the registry that serves it), created and registered times, visibility.
 */
import type { RegistryStateView } from '../../inspector/registry-state.js'
import { href } from '../../router.js'
import { StatusBadge, Time } from '../ui.js'

export function RegistryStateBlock({ state }: { state: RegistryStateView }) {
  return (
    <section aria-labelledby="registry-state-heading" class="inspector-block">
      <h3 id="registry-state-heading">Registry state</h3>
      <dl class="facts">
        <dt>Status</dt>
        <dd data-state-status={state.status}>
          <StatusBadge status={state.status} />
        </dd>
        <dt>Version</dt>
        <dd data-state-version="">{state.version ?? '—'}</dd>
        <dt>Lineage</dt>
        <dd class="mono">
          {state.lineageId === null ? (
            '—'
          ) : state.authority === null ? (
            state.lineageId
          ) : (
            <>
              <span>{state.lineageId}</span>{' '}
              <a
                href={`${href('lineages', state.lineageId)}?registry=${encodeURIComponent(state.authority)}`}
                data-lineage-link={state.lineageId}
              >
                Every version of this lineage
              </a>
            </>
          )}
        </dd>
        <dt>Created (producer)</dt>
        <dd>
          <Time value={state.createdAt} />
        </dd>
        <dt>Registered (receipt)</dt>
        <dd>
          <Time value={state.registeredAt} />
        </dd>
        <dt>Visibility</dt>
        <dd data-state-visibility="">{state.visibility ?? '—'}</dd>
      </dl>
    </section>
  )
}
