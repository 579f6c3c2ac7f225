/** The body's DataRefs (inspector/data-ref-rows.ts), each with its hash verdict from the verification report. */
import type { DataRefRow } from '../../inspector/data-ref-rows.js'
import { VerdictMark } from '../ui.js'

export function DataRefList({ rows }: { rows: DataRefRow[] }) {
  return (
    <section aria-labelledby="data-refs-heading" class="inspector-block">
      <h3 id="data-refs-heading">Data references ({rows.length})</h3>
      {rows.length === 0 ? (
        <p class="muted">The body references no data.</p>
      ) : (
        <ul class="verdicts" aria-label="Data references">
          {rows.map((row) => (
            <li key={row.index} data-data-ref={row.index} data-mark={row.mark}>
              <VerdictMark mark={row.mark} /> <strong class="mono">{row.where}</strong>
              <span class="muted">
                {[row.role, row.format, row.sizeBytes === null ? null : `${row.sizeBytes} bytes`]
                  .filter((part) => part !== null)
                  .join(' · ')}
              </span>
              <span class="detail">
                {row.contentHash === null ? 'no content_hash declared' : `content_hash ${row.contentHash}`} —{' '}
                {row.detail}
              </span>
            </li>
          ))}
        </ul>
      )}
    </section>
  )
}
