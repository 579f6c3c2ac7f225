/**
 * `acdp runs`: the control plane's run list (GET /runs) as a table, or as the raw page with --json.
 */
import { type Command, parseCommandArgs } from '../command.js'
import { EXIT, usageError } from '../exit-codes.js'
import { listRuns, type RunView } from '../http/control-plane-client.js'
import { renderTable } from '../render/text-table.js'
import { controlPlaneOf, resolveStackTarget } from '../stack-target.js'
import { checkBaseUrl, JSON_OPTION, parseIntegerFlag, TARGET_HELP, TARGET_OPTIONS } from './shared-options.js'

const RUN_STATUSES = ['running', 'completed', 'failed', 'cancelled']

/** `acdp runs` (help text below is what `acdp runs --help` prints). */
export const runsCommand: Command = {
  name: 'runs',
  summary: 'list runs recorded by the control plane',
  help: `Usage: acdp runs [--status S] [--scenario ID] [--limit N] [--offset N] [--json]

Lists runs, newest first (GET /runs on the control plane).

Options:
  --status S            only runs in status S: ${RUN_STATUSES.join(', ')}
  --scenario ID         only runs of scenario ID
  --limit N             page size, 1–200 (default 50)
  --offset N            skip N runs (default 0)
  --json                print the control plane's page { data, total, limit, offset } as JSON
${TARGET_HELP}`,
  async run(args, io) {
    const { values } = parseCommandArgs(
      'runs',
      args,
      {
        ...TARGET_OPTIONS,
        ...JSON_OPTION,
        status: { type: 'string' },
        scenario: { type: 'string' },
        limit: { type: 'string' },
        offset: { type: 'string' },
      },
      { min: 0, max: 0, names: '' },
    )
    if (values.status !== undefined && !RUN_STATUSES.includes(values.status)) {
      throw usageError(`--status must be one of ${RUN_STATUSES.join(', ')}`)
    }
    const target = resolveStackTarget(io, {
      controlPlane: checkBaseUrl('control-plane', values['control-plane']),
      dataDir: values['data-dir'],
    })
    const page = await listRuns(io, controlPlaneOf(target), {
      status: values.status,
      scenarioId: values.scenario,
      limit: parseIntegerFlag('limit', values.limit, 1, 200),
      offset: parseIntegerFlag('offset', values.offset, 0, Number.MAX_SAFE_INTEGER),
    })
    if (values.json) {
      io.stdout(`${JSON.stringify(page, null, 2)}\n`)
      return EXIT.ok
    }
    io.stdout(`${renderRunTable(page.data)}\n`)
    io.stdout(`${page.data.length} of ${page.total} run${page.total === 1 ? '' : 's'}\n`)
    return EXIT.ok
  },
}

/** The human table of runs. */
export function renderRunTable(runs: readonly RunView[]): string {
  return renderTable(
    [
      { header: 'run_id', cell: (run: RunView) => String(run.runId) },
      { header: 'scenario', cell: (run: RunView) => String(run.scenarioId ?? '') },
      { header: 'status', cell: (run: RunView) => String(run.status) },
      { header: 'contexts', cell: (run: RunView) => String(run.contextsCount ?? ''), alignRight: true },
      { header: 'started', cell: (run: RunView) => String(run.startedAt ?? '') },
    ],
    runs,
  )
}
