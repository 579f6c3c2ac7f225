/**
 * `acdp demo`: plays the market-watch scenario against a running stack through real HTTP — run started on the
 * control plane (HMAC-signed), ten contexts from three fresh did:key agents with derived_from links and one
 * supersession, the run completed — then prints the run's lineage graph as the control plane serves it.
 */
import { randomBytes } from 'node:crypto'
import { createProducer, createProducerKey, type Producer } from '@acdp/protocol'
import { describeCliInvocation } from '../cli-invocation.js'
import { type CliIo, type Command, parseCommandArgs } from '../command.js'
import { DEMO_AGENTS, type DemoAgent, MARKET_WATCH_STEPS, SCENARIO_ID } from '../demo/market-watch-scenario.js'
import { CliError, EXIT } from '../exit-codes.js'
import {
  type ControlPlaneTarget,
  getRun,
  getRunLineage,
  notifyRunCompleted,
  notifyRunStarted,
} from '../http/control-plane-client.js'
import { guardRegistryCalls } from '../http/wrong-service.js'
import { type LineageGraph, renderLineageGraph } from '../render/lineage-text.js'
import { abbreviate } from '../render/text-table.js'
import { controlPlaneOf, resolveStackTarget } from '../stack-target.js'
import { checkBaseUrl, JSON_OPTION, parseIntegerFlag, TARGET_HELP, TARGET_OPTIONS } from './shared-options.js'

/** Default bound on waiting for the control plane to ingest the run's events, in seconds. */
const DEFAULT_INGEST_WAIT_SECONDS = 15

/** `acdp demo` (help text below is what `acdp demo --help` prints). */
export const demoCommand: Command = {
  name: 'demo',
  summary: 'play a three-agent scenario against the running stack and print its lineage',
  help: `Usage: acdp demo [--json] [--wait SECONDS]

Against a running stack (acdp dev): tells the control plane a run started (POST /runs/started, HMAC-signed),
publishes ${MARKET_WATCH_STEPS.length} contexts from three fresh did:key agents (collector, analyst, forecaster) with
derived_from links across agents and one supersession, waits until the control plane has ingested them
through the registry's webhook, completes the run, and prints the lineage graph the control plane serves.

The run secret (the control plane's WEBHOOK_SECRET) and API key come from ACDP_RUN_SECRET / ACDP_API_KEY or
the dev stack's data directory.

Options:
  --wait SECONDS        how long to wait for the control plane to ingest the run (default ${DEFAULT_INGEST_WAIT_SECONDS})
  --json                print { run_id, agents, contexts, run, lineage } as JSON
${TARGET_HELP}`,
  async run(args, io) {
    const { values } = parseCommandArgs(
      'demo',
      args,
      { ...TARGET_OPTIONS, ...JSON_OPTION, wait: { type: 'string' } },
      { min: 0, max: 0, names: '' },
    )
    const waitSeconds = parseIntegerFlag('wait', values.wait, 1, 600) ?? DEFAULT_INGEST_WAIT_SECONDS
    const target = resolveStackTarget(io, {
      registry: checkBaseUrl('registry', values.registry),
      controlPlane: checkBaseUrl('control-plane', values['control-plane']),
      dataDir: values['data-dir'],
    })
    if (target.runSecret === undefined) {
      throw new CliError(
        EXIT.usage,
        'usage',
        'no run secret: start the stack with acdp dev (it keeps one in its data directory) or set ACDP_RUN_SECRET',
      )
    }
    const controlPlane = controlPlaneOf(target)
    const note = (text: string) => {
      if (!values.json) io.stdout(`${text}\n`)
    }
    const startedAt = performance.now()
    const runId = `demo-${new Date().toISOString().slice(0, 19).replace(/[-:]/g, '').replace('T', '-')}-${randomBytes(3).toString('hex')}`
    const producers = createAgents(target.registryUrl, guardRegistryCalls(io, [target.registryUrl]).io)
    note(`acdp demo: run ${runId} (scenario ${SCENARIO_ID})`)
    for (const agent of DEMO_AGENTS) note(`  agent ${agent.padEnd(10)} ${producers[agent].did}`)

    await notifyRunStarted(io, controlPlane, target.runSecret, {
      run_id: runId,
      scenario_id: SCENARIO_ID,
      started_at: new Date().toISOString(),
      inputs: { agents: [...DEMO_AGENTS], steps: MARKET_WATCH_STEPS.length },
    })
    note('  run started on the control plane')

    const contexts: Array<{
      step: number
      ctx_id: string
      agent: DemoAgent
      type: string
      title: string
      version: number
    }> = []
    for (const [index, step] of MARKET_WATCH_STEPS.entries()) {
      const ctxOf = (stepNumber: number) => contexts[stepNumber - 1]!.ctx_id
      const result = await producers[step.agent].publish(
        {
          title: step.title,
          type: step.type,
          summary: step.summary,
          domain: 'finance.markets',
          metadata: { ...step.metadata, scenario_id: SCENARIO_ID },
          derived_from: step.derivedFrom.map(ctxOf),
        },
        { runId, signal: io.signal, ...(step.supersedes === undefined ? {} : { supersedes: ctxOf(step.supersedes) }) },
      )
      const version = Number(result.request['version'])
      contexts.push({
        step: index + 1,
        ctx_id: result.ctxId,
        agent: step.agent,
        type: step.type,
        title: step.title,
        version,
      })
      const extra = step.supersedes === undefined ? '' : `  (v${version}, supersedes step ${step.supersedes})`
      const counter = `[${String(index + 1).padStart(2)}/${MARKET_WATCH_STEPS.length}]`
      note(
        `  ${counter} ${step.agent.padEnd(10)} ${step.type.padEnd(13)} ${abbreviate(step.title, 31, 0).padEnd(32)} ${result.ctxId}${extra}`,
      )
    }

    const lineage = await waitForIngest(io, controlPlane, runId, contexts.length, waitSeconds)
    note(`  control plane ingested all ${contexts.length} events via the registry's signed webhook`)
    await notifyRunCompleted(io, controlPlane, target.runSecret, runId, {
      status: 'completed',
      result: {
        contexts: contexts.length,
        superseded: MARKET_WATCH_STEPS.filter((step) => step.supersedes !== undefined).length,
      },
    })
    const run = await getRun(io, controlPlane, runId)
    const elapsedMs = Math.round(performance.now() - startedAt)
    if (values.json) {
      const agents = DEMO_AGENTS.map((name) => ({ name, did: producers[name].did }))
      io.stdout(
        `${JSON.stringify({ run_id: runId, agents, contexts, run, lineage, elapsed_ms: elapsedMs }, null, 2)}\n`,
      )
      return EXIT.ok
    }
    note(`  run ${run.status} (${elapsedMs} ms)\n`)
    note(renderLineageGraph(lineage))
    const last = contexts.at(-1)!
    const cli = describeCliInvocation(io.cwd)
    note(`\nNext:  ${cli} run ${runId}\n       ${cli} get ${last.ctx_id} --verify`)
    return EXIT.ok
  },
}

function createAgents(registryUrl: string, io: CliIo): Record<DemoAgent, Producer> {
  const entries = DEMO_AGENTS.map(
    (agent) => [agent, createProducer({ registryUrl, key: createProducerKey(), fetch: io.fetch })] as const,
  )
  return Object.fromEntries(entries) as Record<DemoAgent, Producer>
}

/**
 * Polls the run's lineage until it holds `expected` nodes: the registry delivers its webhooks asynchronously,
 * so the last publish returns before the control plane has the event.
 *
 * @throws CliError `ingest_timeout` (exit 1) when the bound passes first.
 */
async function waitForIngest(
  io: CliIo,
  target: ControlPlaneTarget,
  runId: string,
  expected: number,
  waitSeconds: number,
): Promise<LineageGraph> {
  const deadline = performance.now() + waitSeconds * 1000
  let delayMs = 25
  for (;;) {
    const lineage = await getRunLineage(io, target, runId)
    if (lineage.nodes.length >= expected) return lineage
    if (performance.now() > deadline) {
      throw new CliError(
        EXIT.failure,
        'ingest_timeout',
        `the control plane has ${lineage.nodes.length} of ${expected} events of run ${runId} after ${waitSeconds} s; is the registry's webhook reaching it?`,
      )
    }
    await new Promise((resolve) => setTimeout(resolve, delayMs))
    delayMs = Math.min(delayMs * 2, 250)
  }
}
