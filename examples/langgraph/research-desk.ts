/**
 * A research desk on LangGraph.js, recorded with @acdp/integrations/langgraph: research → (bull case, bear case)
 * → alert, each node wrapped with recordNode. Each node's output becomes a signed context; the graph's edges
 * become derived_from (the alert derives from both cases). Runs on LangChain's FakeListChatModel unless
 * OPENAI_API_KEY is set.
 *
 *   npm start                  # in another terminal: the dev stack
 *   npm run example:langgraph
 */
import { acdpLineage, createLangGraphRecorder, recordNode } from '@acdp/integrations/langgraph'
import type { BaseChatModel } from '@langchain/core/language_models/chat_models'
import { FakeListChatModel } from '@langchain/core/utils/testing'
import { Annotation, END, START, StateGraph } from '@langchain/langgraph'
import { ChatOpenAI } from '@langchain/openai'
import { devStackConfig, printRun, realModelName } from '@acdp/examples/dev-stack'

const modelName = realModelName()
const config = devStackConfig('langgraph-research-desk', ['research', 'bull', 'bear', 'alert'])
const recorder = createLangGraphRecorder(config)

function chat(scripted: string): BaseChatModel {
  return modelName === undefined
    ? new FakeListChatModel({ responses: [scripted] })
    : new ChatOpenAI({ model: modelName })
}
async function ask(model: BaseChatModel, prompt: string): Promise<string> {
  return String((await model.invoke(prompt)).content)
}

const Desk = Annotation.Root({
  pair: Annotation<string>(),
  findings: Annotation<string>(),
  upside: Annotation<string>(),
  downside: Annotation<string>(),
  decision: Annotation<string>(),
  acdp: acdpLineage,
})
type DeskState = typeof Desk.State

const researcher = chat('BTC/USD trades at 67,250.5, sampled from three venues; depth within 1% is 41 M USD.')
const bull = chat('Bull case: deep order books and falling volatility favour a move to 68.6k.')
const bear = chat('Bear case: funding rates are stretched; a slip to 65.9k is as likely.')
const judge = chat('No alert: both cases stay inside the 65.9k–68.6k range.')

const graph = new StateGraph(Desk)
  .addNode(
    'research',
    recordNode(recorder, 'research', async (state: DeskState) => ({
      findings: await ask(researcher, `Summarise the ${state.pair} market in one sentence.`),
    })),
  )
  .addNode(
    'bull',
    recordNode(recorder, 'bull', async (state: DeskState) => ({
      upside: await ask(bull, `Give the bull case in one sentence: ${state.findings}`),
    })),
  )
  .addNode(
    'bear',
    recordNode(recorder, 'bear', async (state: DeskState) => ({
      downside: await ask(bear, `Give the bear case in one sentence: ${state.findings}`),
    })),
  )
  .addNode(
    'alert',
    recordNode(recorder, 'alert', async (state: DeskState) => ({
      decision: await ask(judge, `Alert a trader? One sentence.\n${state.upside}\n${state.downside}`),
    })),
  )
  .addEdge(START, 'research')
  .addEdge('research', 'bull')
  .addEdge('research', 'bear')
  .addEdge(['bull', 'bear'], 'alert')
  .addEdge('alert', END)
  .compile()

await recorder.startRun({ pair: 'BTC/USD', model: modelName ?? 'fake' })
const final = await graph.invoke({ pair: 'BTC/USD' })
await recorder.completeRun('completed', { alert: final.decision })

printRun(
  recorder.runId,
  config.consoleUrl,
  recorder.published().map((step) => `  ${step.kind.padEnd(6)} ${step.name.padEnd(10)} ${step.ctxId}`),
)
