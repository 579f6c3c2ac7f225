/** A table of runs linking to their detail page. */
import type { Run } from '../api/types.js'
import { href } from '../router.js'
import { StatusBadge, Time } from './ui.js'

export function RunTable({ runs, caption }: { runs: Run[]; caption: string }) {
  if (runs.length === 0) return <p class="muted">No runs.</p>
  return (
    <div class="table-scroll">
      <table>
        <caption class="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">Run</th>
            <th scope="col">Scenario</th>
            <th scope="col">Status</th>
            <th scope="col">Started</th>
            <th scope="col" class="num">
              Contexts
            </th>
            <th scope="col" class="num">
              Events
            </th>
          </tr>
        </thead>
        <tbody>
          {runs.map((run) => (
            <tr key={run.runId} data-run-id={run.runId}>
              <td>
                <a href={href('runs', run.runId)}>{run.runId}</a>
              </td>
              <td>{run.scenarioId}</td>
              <td>
                <StatusBadge status={run.status} />
              </td>
              <td>
                <Time value={run.startedAt} />
              </td>
              <td class="num">{run.contextsCount}</td>
              <td class="num">{run.eventsCount}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}
