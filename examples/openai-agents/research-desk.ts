/**
 * A research desk on the OpenAI Agents SDK, recorded with @acdp/integrations/openai-agents: a research agent
 * (with a price tool) hands off to an analysis agent, which hands off to an alert agent. The AcdpTracingProcessor
 * turns each model response and tool call into a signed context; each handoff becomes a derived_from edge. Runs
 * on the SDK's ScriptedModel unless OPENAI_API_KEY is set (then on the SDK's default OpenAI model).
 *
 *   npm start                  # in another terminal: the dev stack
 *   npm run example:openai-agents
 */
import { AcdpTracingProcessor, createAgentsRecorder, runRecorded, tracedModel } from '@acdp/integrations/openai-agents'
import { Agent, type Model, run, setTraceProcessors, setTracingDisabled, tool } from '@openai/agents'
import { assistantMessage, functionCall, ScriptedModel } from '@openai/agents-core/testing'
import { z } from 'zod'
import { devStackConfig, printRun, realModelName } from '@acdp/examples/dev-stack'

const modelName = realModelName()
const config = devStackConfig('openai-agents-research-desk', ['research', 'analysis', 'alert'])
const recorder = createAgentsRecorder(config)
const processor = new AcdpTracingProcessor(recorder)
// Only this processor: the SDK's default exporter would send the traces to OpenAI.
setTraceProcessors([processor])
setTracingDisabled(false)

/** A scripted model without a key; the SDK's default model (by name) with one. */
function model(script: ConstructorParameters<typeof ScriptedModel>[0]): Model | string {
  return modelName ?? tracedModel(new ScriptedModel(script), 'scripted')
}

const spotPrice = tool({
  name: 'spot_price',
  description: 'Mid price of a trading pair',
  parameters: z.object({ pair: z.string() }),
  execute: async ({ pair }) => JSON.stringify({ pair, mid: 67250.5, venues: 3 }),
})

const alert = new Agent({
  name: 'alert',
  instructions: 'Decide in one sentence whether a trader should be alerted.',
  model: model([[assistantMessage('No alert. BTC is inside its forecast range; re-check if it leaves 65.9k–68.6k.')]]),
})
const analysis = new Agent({
  name: 'analysis',
  instructions: 'Assess the volatility in one sentence, then hand off to the alert agent.',
  model: model([
    [
      assistantMessage('Realised volatility is 3.1% over 24 h, below its 30-day mean: the market is calm.'),
      functionCall('transfer_to_alert', {}, { callId: 'handoff-2' }),
    ],
  ]),
  handoffs: [alert],
})
const research = new Agent({
  name: 'research',
  instructions: 'Find the BTC/USD price with spot_price, summarise it in one sentence, then hand off to analysis.',
  tools: [spotPrice],
  model: model([
    [functionCall('spot_price', { pair: 'BTC/USD' }, { callId: 'price-1' })],
    [
      assistantMessage('BTC/USD trades at 67,250.5, sampled from three venues.'),
      functionCall('transfer_to_analysis', {}, { callId: 'handoff-1' }),
    ],
  ]),
  handoffs: [analysis],
})

await recorder.startRun({ pair: 'BTC/USD', model: modelName ?? 'scripted' })
const result = await runRecorded(processor, () => run(research, 'Watch BTC/USD and tell me if I should act.'))
await recorder.completeRun('completed', { alert: String(result.finalOutput) })

printRun(
  recorder.runId,
  config.consoleUrl,
  recorder.published().map((step) => `  ${step.kind.padEnd(6)} ${step.name.padEnd(10)} ${step.ctxId}`),
)
