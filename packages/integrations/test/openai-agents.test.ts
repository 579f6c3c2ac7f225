/**
 * The OpenAI Agents SDK adapter against a real registry and control plane on loopback, on the SDK's own test
 * double (`ScriptedModel` from `@openai/agents-core/testing`, traced like the SDK's Chat Completions model): a
 * research agent hands off to an analysis agent, which hands off to an alert agent — three contexts, the two
 * handoffs as derived_from edges, one control-plane run, each verifying with `acdp get --verify`; a tool call
 * is recorded between the responses around it; and a refused publication fails the run under record-or-fail and
 * is counted under best-effort.
 */
import { Agent, run, setTraceProcessors, setTracingDisabled, tool } from '@openai/agents'
import { assistantMessage, functionCall, ScriptedModel } from '@openai/agents-core/testing'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { RecordingError } from '../src/core/index.js'
import { AcdpTracingProcessor, createAgentsRecorder, runRecorded, tracedModel } from '../src/openai-agents/index.js'
import { refusingFetch, type RecordingStack, startRecordingStack } from './recording-stack.js'

/** research → analysis → alert, each agent answering from its own script and handing off to the next. */
function desk() {
  const alert = new Agent({
    name: 'alert',
    instructions: 'Decide whether to alert.',
    model: tracedModel(new ScriptedModel([[assistantMessage('No alert: BTC within its range.')]]), 'scripted'),
  })
  const analysis = new Agent({
    name: 'analysis',
    instructions: 'Analyse the research.',
    model: tracedModel(
      new ScriptedModel([
        [assistantMessage('Volatility is low.'), functionCall('transfer_to_alert', {}, { callId: 'h2' })],
      ]),
      'scripted',
    ),
    handoffs: [alert],
  })
  const research = new Agent({
    name: 'research',
    instructions: 'Research the market.',
    model: tracedModel(
      new ScriptedModel([
        [assistantMessage('BTC trades at 67,250 USD.'), functionCall('transfer_to_analysis', {}, { callId: 'h1' })],
      ]),
      'scripted',
    ),
    handoffs: [analysis],
  })
  return research
}

describe('OpenAI Agents SDK adapter (AcdpTracingProcessor) on ScriptedModel', () => {
  let env: RecordingStack

  beforeAll(async () => {
    env = await startRecordingStack(['research', 'analysis', 'alert'])
    setTracingDisabled(false)
  })
  afterAll(async () => {
    setTraceProcessors([])
    await env?.close()
  })

  it('research → analysis → alert through two handoffs: three contexts, handoffs as derived_from, one run, each verifies', async () => {
    const recorder = createAgentsRecorder(env.config())
    const processor = new AcdpTracingProcessor(recorder)
    setTraceProcessors([processor])
    await recorder.startRun({ topic: 'BTC' })
    const result = await runRecorded(processor, () => run(desk(), 'Watch BTC.'))
    expect(result.finalOutput).toBe('No alert: BTC within its range.')
    await recorder.completeRun('completed')

    const steps = recorder.published()
    expect(steps.map((step) => [step.kind, step.name])).toEqual([
      ['model', 'research'],
      ['model', 'analysis'],
      ['model', 'alert'],
    ])
    const [first, second, third] = steps.map((step) => step.ctxId)
    const { run: cpRun, lineage } = await env.waitForRun(recorder.runId, 3)
    expect(cpRun).toMatchObject({ runId: recorder.runId, status: 'completed' })
    expect(lineage.nodes.map((node) => node.ctxId)).toEqual([first, second, third])
    expect(lineage.edges).toHaveLength(2)
    expect(lineage.edges).toEqual(
      expect.arrayContaining([
        { from: first, to: second },
        { from: second, to: third },
      ]),
    )
    expect(lineage.nodes.map((node) => node.agentId)).toEqual(
      ['research', 'analysis', 'alert'].map((role) => env.keys[role]!.did),
    )
    for (const ctxId of [first!, second!, third!]) {
      const { code, verification } = await env.verify(ctxId)
      expect(verification.ok, verification.summary).toBe(true)
      expect(code).toBe(0)
    }
  })

  it('a tool call is recorded from the response that asked for it, and the next response derives from its result', async () => {
    const recorder = createAgentsRecorder(env.config())
    const processor = new AcdpTracingProcessor(recorder)
    setTraceProcessors([processor])
    const price = tool({
      name: 'price',
      description: 'Spot price of a pair',
      parameters: z.object({ pair: z.string() }),
      execute: async ({ pair }) => JSON.stringify({ pair, mid: 67250 }),
    })
    const agent = new Agent({
      name: 'research',
      instructions: 'Research.',
      tools: [price],
      model: tracedModel(
        new ScriptedModel([
          [functionCall('price', { pair: 'BTC/USD' }, { callId: 't1' })],
          [assistantMessage('BTC at 67,250.')],
        ]),
        'scripted',
      ),
    })
    await runRecorded(processor, () => run(agent, 'Price?'))
    const steps = recorder.published()
    expect(steps.map((step) => [step.kind, step.name])).toEqual([
      ['model', 'research'],
      ['tool', 'price'],
      ['model', 'research'],
    ])
    expect(steps[1]!.derivedFrom).toEqual([steps[0]!.ctxId])
    expect(steps[2]!.derivedFrom).toEqual([steps[1]!.ctxId])
  })

  it('record-or-fail: a refused publication fails the run once its publications settle', async () => {
    const recorder = createAgentsRecorder(
      env.config({ fetch: refusingFetch((body) => body['title'] === 'model analysis'), maxRetries: 1, retryBaseMs: 5 }),
    )
    const processor = new AcdpTracingProcessor(recorder)
    setTraceProcessors([processor])
    await expect(runRecorded(processor, () => run(desk(), 'Watch BTC.'))).rejects.toBeInstanceOf(RecordingError)
    // The alert response still derives from what exists: the research context (lineage through the gap).
    const steps = recorder.published()
    expect(steps.map((step) => step.name)).toEqual(['research', 'alert'])
    expect(steps[1]!.derivedFrom).toEqual([steps[0]!.ctxId])
  })

  it('best-effort: the run answers, the failure is counted', async () => {
    const recorder = createAgentsRecorder(
      env.config({
        failurePolicy: 'best-effort',
        fetch: refusingFetch((body) => body['title'] === 'model analysis'),
        maxRetries: 1,
        retryBaseMs: 5,
      }),
    )
    const processor = new AcdpTracingProcessor(recorder)
    setTraceProcessors([processor])
    const result = await runRecorded(processor, () => run(desk(), 'Watch BTC.'))
    expect(result.finalOutput).toBe('No alert: BTC within its range.')
    expect(recorder.stats()).toMatchObject({ published: 2, failed: 1, dropped: 0 })
    const [research, alert] = recorder.published()
    expect(alert!.derivedFrom).toEqual([research!.ctxId])
  })
})
