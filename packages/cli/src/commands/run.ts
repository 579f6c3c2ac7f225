/**
 * `acdp run <run_id>`: one run (GET /runs/:runId) and its lineage graph (GET /runs/:runId/lineage) as text, or
 * both documents with --json. `acdp run start|complete` send the run notices (run-notices.ts).
 */
import { type Command, parseCommandArgs } from '../command.js'
import { EXIT } from '../exit-codes.js'
import { getRun, getRunLineage } from '../http/control-plane-client.js'
import { renderLineageGraph } from '../render/lineage-text.js'
import { sanitizeTerminalText } from '../render/text-table.js'
import { controlPlaneOf, resolveStackTarget } from '../stack-target.js'
import { RUN_NOTICE_HELP, RUN_NOTICE_OPTIONS_HELP, runNotice } from './run-notices.js'
import { checkBaseUrl, JSON_OPTION, TARGET_HELP, TARGET_OPTIONS } from './shared-options.js'

/** `acdp run` (help text below is what `acdp run --help` prints). */
export const runCommand: Command = {
  name: 'run',
  summary: 'show one run and its lineage graph; start or complete a run',
  help: `Usage: acdp run <run_id> [--json]
${RUN_NOTICE_HELP}

Shows a run recorded by the control plane and the lineage graph of the contexts published in it: one line
per context in publication order, naming the steps it was derived from. "start" and "complete" record a
run's start and outcome (a run made by publishing with --run-id stays "running" until completed); a run whose
id is "start" or "complete" is shown with acdp run -- <run_id>.

Options:
  --json                print { "run": <GET /runs/:id>, "lineage": <GET /runs/:id/lineage> } as JSON
${RUN_NOTICE_OPTIONS_HELP}
${TARGET_HELP}`,
  async run(args, io) {
    const [first, ...rest] = args
    if (first === 'start' || first === 'complete') return runNotice(first, rest, io)
    const { values, positionals } = parseCommandArgs(
      'run',
      args,
      { ...TARGET_OPTIONS, ...JSON_OPTION },
      { min: 1, max: 1, names: 'one run id' },
    )
    const runId = positionals[0]!
    const target = controlPlaneOf(
      resolveStackTarget(io, {
        controlPlane: checkBaseUrl('control-plane', values['control-plane']),
        dataDir: values['data-dir'],
      }),
    )
    const [run, lineage] = await Promise.all([getRun(io, target, runId), getRunLineage(io, target, runId)])
    if (values.json) {
      io.stdout(`${JSON.stringify({ run, lineage }, null, 2)}\n`)
      return EXIT.ok
    }
    const facts = [
      `status ${run.status}`,
      run.scenarioId === undefined ? undefined : `scenario ${run.scenarioId}`,
      run.startedAt ? `started ${run.startedAt}` : undefined,
      run.completedAt ? `completed ${run.completedAt}` : undefined,
    ].filter((fact) => fact !== undefined)
    io.stdout(`${sanitizeTerminalText(`run ${run.runId}: ${facts.join(', ')}`)}\n\n${renderLineageGraph(lineage)}\n`)
    return EXIT.ok
  },
}
