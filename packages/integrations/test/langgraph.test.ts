/**
 * The LangGraph.js adapter against a real registry and control plane on loopback, on LangChain's own fake chat
 * model (`FakeListChatModel` from `@langchain/core/utils/testing`): a research → analysis → alert graph gives
 * three contexts linked along its edges in one control-plane run, each verifying with `acdp get --verify`; a
 * fan-out and fan-in derives the joining node from both branches; and a node whose publication the registry
 * refuses fails the graph under record-or-fail and is counted under best-effort.
 */
import { FakeListChatModel } from '@langchain/core/utils/testing'
import { Annotation, END, START, StateGraph } from '@langchain/langgraph'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Recorder, RecordingError } from '../src/core/index.js'
import { acdpLineage, createLangGraphRecorder, recordNode } from '../src/langgraph/index.js'
import { refusingFetch, type RecordingStack, startRecordingStack } from './recording-stack.js'

const DeskState = Annotation.Root({
  topic: Annotation<string>(),
  findings: Annotation<string>(),
  assessment: Annotation<string>(),
  decision: Annotation<string>(),
  acdp: acdpLineage,
})
type Desk = typeof DeskState.State

function reply(text: string) {
  const model = new FakeListChatModel({ responses: [text] })
  return async (prompt: string) => String((await model.invoke(prompt)).content)
}

function deskGraph(recorder: Recorder) {
  const research = reply('BTC trades at 67,250 USD.')
  const analysis = reply('Volatility is low.')
  const alert = reply('No alert: within range.')
  return new StateGraph(DeskState)
    .addNode(
      'research',
      recordNode(recorder, 'research', async (state: Desk) => ({ findings: await research(state.topic) })),
    )
    .addNode(
      'analysis',
      recordNode(recorder, 'analysis', async (state: Desk) => ({ assessment: await analysis(state.findings) })),
    )
    .addNode(
      'alert',
      recordNode(recorder, 'alert', async (state: Desk) => ({ decision: await alert(state.assessment) })),
    )
    .addEdge(START, 'research')
    .addEdge('research', 'analysis')
    .addEdge('analysis', 'alert')
    .addEdge('alert', END)
    .compile()
}

describe('LangGraph.js adapter (recordNode) on FakeListChatModel', () => {
  let env: RecordingStack

  beforeAll(async () => {
    env = await startRecordingStack(['research', 'analysis', 'alert', 'bull', 'bear'])
  })
  afterAll(async () => {
    await env?.close()
  })

  it('research → analysis → alert: three contexts linked along the edges, one completed run, each verifies', async () => {
    const recorder = createLangGraphRecorder(env.config())
    await recorder.startRun({ topic: 'BTC' })
    const final = await deskGraph(recorder).invoke({ topic: 'BTC' })
    expect(final.decision).toBe('No alert: within range.')
    await recorder.completeRun('completed')

    const steps = recorder.published()
    expect(steps.map((step) => step.name)).toEqual(['research', 'analysis', 'alert'])
    const [first, second, third] = steps.map((step) => step.ctxId)
    const { run, lineage } = await env.waitForRun(recorder.runId, 3)
    expect(run).toMatchObject({ runId: recorder.runId, status: 'completed' })
    expect(lineage.nodes.map((node) => node.ctxId)).toEqual([first, second, third])
    expect(lineage.nodes.map((node) => node.contextType)).toEqual(['agent:node', 'agent:node', 'agent:node'])
    expect(lineage.edges).toHaveLength(2)
    expect(lineage.edges).toEqual(
      expect.arrayContaining([
        { from: first, to: second },
        { from: second, to: third },
      ]),
    )
    for (const ctxId of [first!, second!, third!]) {
      const { code, verification } = await env.verify(ctxId)
      expect(verification.ok, verification.summary).toBe(true)
      expect(code).toBe(0)
    }
  })

  it('fan-out and fan-in: the joining node derives from both branches, each branch from the fork', async () => {
    const recorder = createLangGraphRecorder(env.config())
    const State = Annotation.Root({
      upside: Annotation<string>(),
      downside: Annotation<string>(),
      verdict: Annotation<string>(),
      acdp: acdpLineage,
    })
    const graph = new StateGraph(State)
      .addNode(
        'research',
        recordNode(recorder, 'research', async () => ({})),
      )
      .addNode(
        'bull',
        recordNode(recorder, 'bull', async () => ({ upside: 'up' })),
      )
      .addNode(
        'bear',
        recordNode(recorder, 'bear', async () => ({ downside: 'down' })),
      )
      .addNode(
        'alert',
        recordNode(recorder, 'alert', async (state: typeof State.State) => ({
          verdict: `${state.upside}/${state.downside}`,
        })),
      )
      .addEdge(START, 'research')
      .addEdge('research', 'bull')
      .addEdge('research', 'bear')
      .addEdge(['bull', 'bear'], 'alert')
      .addEdge('alert', END)
      .compile()
    expect((await graph.invoke({})).verdict).toBe('up/down')
    await recorder.flush()
    const byName = Object.fromEntries(recorder.published().map((step) => [step.name, step]))
    expect(byName['bull']!.derivedFrom).toEqual([byName['research']!.ctxId])
    expect(byName['bear']!.derivedFrom).toEqual([byName['research']!.ctxId])
    expect(new Set(byName['alert']!.derivedFrom)).toEqual(new Set([byName['bull']!.ctxId, byName['bear']!.ctxId]))
  })

  it('record-or-fail: the node whose context the registry refuses fails the graph with a RecordingError', async () => {
    const recorder = createLangGraphRecorder(
      env.config({ fetch: refusingFetch((body) => body['title'] === 'node analysis'), maxRetries: 1, retryBaseMs: 5 }),
    )
    await expect(deskGraph(recorder).invoke({ topic: 'BTC' })).rejects.toSatisfy((error: unknown) => {
      for (let current = error; current instanceof Error; current = current.cause) {
        if (current instanceof RecordingError) return true
      }
      return false
    })
    expect(recorder.published().map((step) => step.name)).toEqual(['research'])
  })

  it('best-effort: the graph completes, the failure is counted, the next node derives through the gap', async () => {
    const recorder = createLangGraphRecorder(
      env.config({
        failurePolicy: 'best-effort',
        fetch: refusingFetch((body) => body['title'] === 'node analysis'),
        maxRetries: 1,
        retryBaseMs: 5,
      }),
    )
    expect((await deskGraph(recorder).invoke({ topic: 'BTC' })).decision).toBe('No alert: within range.')
    await recorder.flush()
    expect(recorder.stats()).toMatchObject({ published: 2, failed: 1 })
    const [research, alert] = recorder.published()
    expect(alert!.derivedFrom).toEqual([research!.ctxId])
  })
})
