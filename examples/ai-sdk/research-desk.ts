/**
 * A research desk on the Vercel AI SDK, recorded with @acdp/integrations/ai-sdk: a research agent (with a price
 * tool), an analysis agent and an alert agent, each a `generateText` call whose model is wrapped with
 * acdpMiddleware. Every model call and tool result becomes a signed context in one control-plane run, linked by
 * derived_from. Runs on the SDK's MockLanguageModelV4 unless OPENAI_API_KEY is set.
 *
 *   npm start                  # in another terminal: the dev stack
 *   npm run example:ai-sdk
 */
import { createOpenAI } from '@ai-sdk/openai'
import { acdpInputs, acdpMiddleware, createAiSdkRecorder } from '@acdp/integrations/ai-sdk'
import { generateText, type LanguageModel, stepCountIs, tool, wrapLanguageModel } from 'ai'
import { MockLanguageModelV4 } from 'ai/test'
import { z } from 'zod'
import { devStackConfig, printRun, realModelName } from '@acdp/examples/dev-stack'

type MockResult = Awaited<ReturnType<MockLanguageModelV4['doGenerate']>>
const USAGE = {
  inputTokens: { total: 12, noCache: 12, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 8, text: 8, reasoning: undefined },
}
const say = (text: string): MockResult => ({
  content: [{ type: 'text', text }],
  finishReason: { unified: 'stop', raw: 'stop' },
  usage: USAGE,
  warnings: [],
})

/** The scripted answers each agent gives without a model key. */
const SCRIPTS: Record<string, MockResult[]> = {
  research: [
    {
      content: [
        { type: 'tool-call', toolCallId: 'price-1', toolName: 'spotPrice', input: JSON.stringify({ pair: 'BTC/USD' }) },
      ],
      finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
      usage: USAGE,
      warnings: [],
    },
    say('BTC/USD trades at 67,250.5, sampled from three venues; 24 h range 65,900–68,600.'),
  ],
  analysis: [say('Realised volatility is 3.1% over 24 h, below its 30-day mean: the market is calm.')],
  alert: [say('No alert. BTC is inside its forecast range; re-check if it leaves 65.9k–68.6k.')],
}

const modelName = realModelName()
const openai = modelName === undefined ? undefined : createOpenAI()
const config = devStackConfig('ai-sdk-research-desk', Object.keys(SCRIPTS))
const recorder = createAiSdkRecorder(config)

function agentModel(agent: string): LanguageModel {
  const model =
    openai === undefined
      ? new MockLanguageModelV4({ modelId: `mock-${agent}`, doGenerate: SCRIPTS[agent]! })
      : openai(modelName!)
  return wrapLanguageModel({ model, middleware: acdpMiddleware(recorder, { agent }) })
}

const spotPrice = tool({
  description: 'Mid price of a trading pair',
  inputSchema: z.object({ pair: z.string() }),
  execute: async ({ pair }) => ({ pair, mid: 67250.5, venues: 3 }),
})

await recorder.startRun({ pair: 'BTC/USD', model: modelName ?? 'mock' })
const research = await generateText({
  model: agentModel('research'),
  prompt: 'Find the current BTC/USD price with the spotPrice tool and summarise it in one sentence.',
  tools: { spotPrice },
  stopWhen: stepCountIs(3),
})
const analysis = await generateText({
  model: agentModel('analysis'),
  prompt: `Assess the volatility implied by this research in one sentence:\n${research.text}`,
  providerOptions: acdpInputs(research),
})
const alert = await generateText({
  model: agentModel('alert'),
  prompt: `Should a trader be alerted? Answer in one sentence:\n${analysis.text}`,
  providerOptions: acdpInputs(analysis),
})
await recorder.completeRun('completed', { alert: alert.text })

printRun(
  recorder.runId,
  config.consoleUrl,
  recorder.published().map((step) => `  ${step.kind.padEnd(6)} ${step.name.padEnd(10)} ${step.ctxId}`),
)
