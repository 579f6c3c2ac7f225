/**
 * `acdp run start <run_id>` and `acdp run complete <run_id>`: the run notices of the control plane (POST
 * /runs/started, POST /runs/:runId/complete). Without them a run made by publishing with `--run-id` stays
 * "running" forever. Both routes are authenticated like ingest, by an HMAC over the body: with the control
 * plane's WEBHOOK_SECRET, or — with `--authority` — the webhook secret of that enrolled registry (a control
 * plane that requires enrollment accepts only the latter). The secret comes from --secret-file, else
 * ACDP_RUN_SECRET, else the running dev stack's; never from the command line.
 */
import { type CliIo, parseCommandArgs } from '../command.js'
import { EXIT, type ExitCode, usageError } from '../exit-codes.js'
import { notifyRunCompleted, notifyRunStarted } from '../http/control-plane-client.js'
import { controlPlaneOf, resolveStackTarget } from '../stack-target.js'
import { readJsonFile, readSecretFile } from './input-files.js'
import { checkBaseUrl, JSON_OPTION, TARGET_OPTIONS } from './shared-options.js'

/** The outcomes POST /runs/:runId/complete accepts. */
const OUTCOMES = ['completed', 'failed', 'cancelled'] as const
type Outcome = (typeof OUTCOMES)[number]

export const RUN_NOTICE_HELP = `       acdp run start <run_id> --scenario ID [--inputs-file FILE] [--authority A] [--secret-file FILE] [--json]
       acdp run complete <run_id> [--status completed|failed|cancelled] [--result-file FILE] [--authority A]
                                  [--secret-file FILE] [--json]`

export const RUN_NOTICE_OPTIONS_HELP = `  start / complete (POST /runs/started, POST /runs/:id/complete, HMAC-signed like ingest):
  --scenario ID         start: the run's scenario id (required)
  --inputs-file FILE    start: JSON recorded as the run's inputs
  --status S            complete: completed (default), failed or cancelled
  --result-file FILE    complete: JSON recorded as the run's result
  --authority A         sign as the enrolled registry A (its webhook secret) and name it in the notice
  --secret-file FILE    the signing secret (default: ACDP_RUN_SECRET, the running dev stack's)
  --tenant ID           sent as X-Tenant-Id (when the control plane trusts the header)`

const OPTIONS = {
  ...TARGET_OPTIONS,
  ...JSON_OPTION,
  scenario: { type: 'string' },
  'inputs-file': { type: 'string' },
  status: { type: 'string' },
  'result-file': { type: 'string' },
  authority: { type: 'string' },
  'secret-file': { type: 'string' },
  tenant: { type: 'string' },
} as const

/** Runs `acdp run start|complete` (`args` after the sub-command). */
export async function runNotice(kind: 'start' | 'complete', args: string[], io: CliIo): Promise<ExitCode> {
  const { values, positionals } = parseCommandArgs('run', args, OPTIONS, { min: 1, max: 1, names: 'one run id' })
  const runId = positionals[0]!
  const stack = resolveStackTarget(io, {
    controlPlane: checkBaseUrl('control-plane', values['control-plane']),
    dataDir: values['data-dir'],
  })
  const secret = values['secret-file'] === undefined ? stack.runSecret : readSecretFile(io, values['secret-file'])
  if (secret === undefined) {
    throw usageError('no signing secret: give --secret-file FILE or set ACDP_RUN_SECRET (the webhook secret)')
  }
  const target = { ...controlPlaneOf(stack), ...(values.tenant === undefined ? {} : { tenantId: values.tenant }) }
  const authority = values.authority === undefined ? {} : { registry_authority: values.authority }
  let status: Outcome | 'running'
  if (kind === 'start') {
    if (values.status !== undefined || values['result-file'] !== undefined) {
      throw usageError('--status and --result-file are for acdp run complete')
    }
    if (values.scenario === undefined) throw usageError('acdp run start needs --scenario ID')
    const inputs =
      values['inputs-file'] === undefined ? {} : { inputs: readJsonFile(io, 'inputs', values['inputs-file']).value }
    await notifyRunStarted(io, target, secret, { run_id: runId, scenario_id: values.scenario, ...inputs, ...authority })
    status = 'running'
  } else {
    if (values.scenario !== undefined || values['inputs-file'] !== undefined) {
      throw usageError('--scenario and --inputs-file are for acdp run start')
    }
    const outcome = values.status ?? 'completed'
    if (!OUTCOMES.includes(outcome as Outcome)) throw usageError(`--status must be one of ${OUTCOMES.join(', ')}`)
    status = outcome as Outcome
    const result =
      values['result-file'] === undefined ? {} : { result: readJsonFile(io, 'result', values['result-file']).value }
    await notifyRunCompleted(io, target, secret, runId, { status, ...result, ...authority })
  }
  if (values.json) io.stdout(`${JSON.stringify({ run_id: runId, status }, null, 2)}\n`)
  else io.stdout(`run ${runId}: ${kind === 'start' ? 'started' : status}\n`)
  return EXIT.ok
}
