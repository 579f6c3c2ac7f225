/**
 * The AI SDK adapter against a real registry and control plane on loopback (the stack `acdp dev` wires), on the
 * SDK's own mock model (`MockLanguageModelV4` from `ai/test`): three agents in a row produce three contexts
 * linked by derived_from in one control-plane run, each verifying with `acdp get --verify`; a tool loop records
 * the tool result between the two model calls; and a step whose publication the registry refuses fails the step
 * under record-or-fail and is counted under best-effort.
 */
import { generateText, stepCountIs, streamText, tool, wrapLanguageModel } from 'ai'
import { MockLanguageModelV4 } from 'ai/test'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'
import { acdpInputs, acdpMiddleware, createAiSdkRecorder, recordOf } from '../src/ai-sdk/index.js'
import { RecordingError } from '../src/core/index.js'
import { refusingFetch, type RecordingStack, startRecordingStack } from './recording-stack.js'

type GenerateResult = Awaited<ReturnType<MockLanguageModelV4['doGenerate']>>

const USAGE = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
}

function textResult(text: string): GenerateResult {
  return {
    content: [{ type: 'text', text }],
    finishReason: { unified: 'stop', raw: 'stop' },
    usage: USAGE,
    warnings: [],
  }
}

function mockModel(id: string, results: GenerateResult[]): MockLanguageModelV4 {
  return new MockLanguageModelV4({ modelId: id, doGenerate: results })
}

describe('AI SDK adapter (acdpMiddleware) on MockLanguageModelV4', () => {
  let env: RecordingStack

  beforeAll(async () => {
    env = await startRecordingStack(['research', 'analysis', 'alert'])
  })
  afterAll(async () => {
    await env?.close()
  })

  it('research → analysis → alert: three contexts, derived_from along the chain, one completed run, each verifies', async () => {
    const recorder = createAiSdkRecorder(env.config())
    await recorder.startRun({ topic: 'BTC' })
    const agent = (name: string, text: string) =>
      wrapLanguageModel({
        model: mockModel(`mock-${name}`, [textResult(text)]),
        middleware: acdpMiddleware(recorder, { agent: name }),
      })

    const research = await generateText({
      model: agent('research', 'BTC trades at 67,250 USD.'),
      prompt: 'Find the BTC price.',
    })
    const analysis = await generateText({
      model: agent('analysis', 'Volatility is low.'),
      prompt: `Analyse: ${research.text}`,
      providerOptions: acdpInputs(research),
    })
    const alert = await generateText({
      model: agent('alert', 'No alert: within range.'),
      prompt: `Decide on an alert: ${analysis.text}`,
      providerOptions: acdpInputs(analysis),
    })
    expect(recordOf(alert)).toBeDefined()
    await recorder.completeRun('completed')

    const steps = recorder.published()
    expect(steps.map((step) => step.name)).toEqual(['research', 'analysis', 'alert'])
    const [first, second, third] = steps.map((step) => step.ctxId)
    const { run, lineage } = await env.waitForRun(recorder.runId, 3)
    expect(run).toMatchObject({ runId: recorder.runId, status: 'completed', scenarioId: 'integration-test' })
    expect(lineage.nodes.map((node) => node.ctxId)).toEqual([first, second, third])
    expect(lineage.edges).toEqual(
      expect.arrayContaining([
        { from: first, to: second },
        { from: second, to: third },
      ]),
    )
    expect(lineage.edges).toHaveLength(2)
    // Each agent signed with its own key.
    expect(new Set(lineage.nodes.map((node) => node.agentId))).toEqual(
      new Set(['research', 'analysis', 'alert'].map((role) => env.keys[role]!.did)),
    )
    for (const ctxId of [first!, second!, third!]) {
      const { code, verification } = await env.verify(ctxId)
      expect(verification.ok, verification.summary).toBe(true)
      expect(code).toBe(0)
    }
    expect(recorder.stats()).toMatchObject({ published: 3, failed: 0, dropped: 0, pending: 0 })
  })

  it('a tool loop records the model call, the tool result derived from it, and the answer derived from the result', async () => {
    const recorder = createAiSdkRecorder(env.config({ key: env.keys['research']! }))
    const model = mockModel('mock-research', [
      {
        content: [
          { type: 'tool-call', toolCallId: 'call-1', toolName: 'price', input: JSON.stringify({ pair: 'BTC/USD' }) },
        ],
        finishReason: { unified: 'tool-calls', raw: 'tool_calls' },
        usage: USAGE,
        warnings: [],
      },
      textResult('BTC is at 67,250.'),
    ])
    const result = await generateText({
      model: wrapLanguageModel({ model, middleware: acdpMiddleware(recorder, { agent: 'research' }) }),
      prompt: 'What is BTC at?',
      tools: {
        price: tool({
          inputSchema: z.object({ pair: z.string() }),
          execute: async ({ pair }) => ({ pair, mid: 67250 }),
        }),
      },
      stopWhen: stepCountIs(3),
    })
    expect(result.text).toBe('BTC is at 67,250.')
    await recorder.flush()
    const steps = recorder.published()
    expect(steps.map((step) => [step.kind, step.name])).toEqual([
      ['model', 'research'],
      ['tool', 'price'],
      ['model', 'research'],
    ])
    expect(steps[1]!.derivedFrom).toEqual([steps[0]!.ctxId])
    expect(steps[2]!.derivedFrom).toEqual([steps[1]!.ctxId])
    const { lineage } = await env.waitForRun(recorder.runId, 3)
    expect(lineage.nodes.map((node) => node.contextType)).toEqual(['agent:model', 'agent:tool', 'agent:model'])
  })

  it('streamText is recorded at the finish part', async () => {
    const recorder = createAiSdkRecorder(env.config({ key: env.keys['research']! }))
    const model = new MockLanguageModelV4({
      modelId: 'mock-stream',
      doStream: async () => ({
        stream: new ReadableStream({
          start(controller) {
            controller.enqueue({ type: 'text-start', id: 't' })
            controller.enqueue({ type: 'text-delta', id: 't', delta: 'streamed ' })
            controller.enqueue({ type: 'text-delta', id: 't', delta: 'answer' })
            controller.enqueue({ type: 'text-end', id: 't' })
            controller.enqueue({ type: 'finish', finishReason: { unified: 'stop', raw: 'stop' }, usage: USAGE })
            controller.close()
          },
        }),
      }),
    })
    const result = streamText({
      model: wrapLanguageModel({ model, middleware: acdpMiddleware(recorder, { agent: 'research' }) }),
      prompt: 'go',
    })
    expect(await result.text).toBe('streamed answer')
    expect(recordOf({ providerMetadata: await result.providerMetadata })).toBeDefined()
    await recorder.flush()
    expect(recorder.published()).toHaveLength(1)
  })

  it('record-or-fail: a step whose context the registry refuses fails with a RecordingError', async () => {
    const recorder = createAiSdkRecorder(
      env.config({
        fetch: refusingFetch((body) => body['title'] === 'model analysis'),
        maxRetries: 2,
        retryBaseMs: 5,
      }),
    )
    const research = await generateText({
      model: wrapLanguageModel({
        model: mockModel('m', [textResult('facts')]),
        middleware: acdpMiddleware(recorder, { agent: 'research' }),
      }),
      prompt: 'research',
    })
    const failing = generateText({
      model: wrapLanguageModel({
        model: mockModel('m', [textResult('analysis')]),
        middleware: acdpMiddleware(recorder, { agent: 'analysis' }),
      }),
      prompt: 'analyse',
      providerOptions: acdpInputs(research),
      maxRetries: 0,
    })
    await expect(failing).rejects.toSatisfy((error: unknown) => hasRecordingError(error))
    expect(recorder.stats()).toMatchObject({ published: 1, failed: 1, retries: 2 })
  })

  it('best-effort: the refused step still answers, the failure is counted and the next step derives from what exists', async () => {
    const failures: string[] = []
    const recorder = createAiSdkRecorder(
      env.config({
        failurePolicy: 'best-effort',
        fetch: refusingFetch((body) => body['title'] === 'model analysis'),
        maxRetries: 1,
        retryBaseMs: 5,
        onError: (error, step) => failures.push(`${step.name}: ${error.reason}`),
      }),
    )
    const agent = (name: string, text: string) =>
      wrapLanguageModel({
        model: mockModel(`mock-${name}`, [textResult(text)]),
        middleware: acdpMiddleware(recorder, { agent: name }),
      })
    const research = await generateText({ model: agent('research', 'facts'), prompt: 'r' })
    const analysis = await generateText({
      model: agent('analysis', 'insight'),
      prompt: 'a',
      providerOptions: acdpInputs(research),
    })
    expect(analysis.text).toBe('insight')
    await generateText({ model: agent('alert', 'ok'), prompt: 'b', providerOptions: acdpInputs(research, analysis) })
    await recorder.flush()
    expect(recorder.stats()).toMatchObject({ published: 2, failed: 1, dropped: 0 })
    expect(failures).toEqual(['analysis: publish_failed'])
    const [researchStep, alertStep] = recorder.published()
    expect(alertStep!.derivedFrom).toEqual([researchStep!.ctxId])
  })
})

function hasRecordingError(error: unknown): boolean {
  for (let current = error; current instanceof Error; current = current.cause) {
    if (current instanceof RecordingError) return true
  }
  return false
}
