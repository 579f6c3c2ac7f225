import { randomUUID } from 'node:crypto'
import type { Span, SpanData } from '@openai/agents'
import { createProducerKey } from '@acdp/protocol'
import { describe, expect, it } from 'vitest'
import { AcdpTracingProcessor, createAgentsRecorder } from './tracing-processor.js'

/** A registry stand-in that keeps each published body. */
function fakeRegistry() {
  const bodies: Array<Record<string, unknown>> = []
  const fetch: typeof globalThis.fetch = async (_input, init) => {
    bodies.push(JSON.parse(String(init?.body)) as Record<string, unknown>)
    return new Response(JSON.stringify({ ctx_id: `acdp://registry.test/${randomUUID()}` }), { status: 201 })
  }
  return { fetch, bodies }
}

/** The members of a span the processor reads. */
function span(spanId: string, parentId: string | null, spanData: SpanData): Span<SpanData> {
  return { traceId: 'trace-1', spanId, parentId, spanData, error: null } as unknown as Span<SpanData>
}

describe('AcdpTracingProcessor on spans as the Responses model emits them', () => {
  it('records response spans under their agent, and a handoff as the next agent’s derived_from', async () => {
    const registry = fakeRegistry()
    const recorder = createAgentsRecorder({
      registryUrl: 'http://registry.test',
      key: createProducerKey(),
      fetch: registry.fetch,
    })
    const processor = new AcdpTracingProcessor(recorder)
    const research = span('a1', null, { type: 'agent', name: 'research' })
    await processor.onSpanStart(research)
    // A turn span between the agent and its response: the processor walks up to the agent.
    await processor.onSpanStart(span('t1', 'a1', { type: 'turn', turn: 1, agent_name: 'research' }))
    await processor.onSpanEnd(
      span('r1', 't1', {
        type: 'response',
        response_id: 'resp_1',
        _response: {
          output: [
            { type: 'message', content: [{ type: 'output_text', text: 'BTC at 67k.' }] },
            { type: 'function_call', name: 'transfer_to_analysis', arguments: '{}' },
          ],
        },
      }),
    )
    await processor.onSpanEnd(span('h1', 'a1', { type: 'handoff', from_agent: 'research', to_agent: 'analysis' }))
    await processor.onSpanEnd(research)
    await processor.onSpanStart(span('a2', null, { type: 'agent', name: 'analysis' }))
    // Sensitive data off: a response span without its response has nothing to record.
    await processor.onSpanEnd(span('r2', 'a2', { type: 'response', response_id: 'resp_2' }))
    await processor.onSpanEnd(span('g1', 'a2', { type: 'generation', model: 'gpt', output: [{ content: 'Calm.' }] }))
    await processor.settle()

    const [first, second] = recorder.published()
    expect(recorder.published()).toHaveLength(2)
    expect(second!.derivedFrom).toEqual([first!.ctxId])
    const metadata = registry.bodies.map((body) => body['metadata'] as Record<string, Record<string, unknown>>)
    expect(metadata[0]!['output']).toEqual({
      text: 'BTC at 67k.',
      calls: [{ name: 'transfer_to_analysis', arguments: {} }],
    })
    expect(metadata[0]!['details']).toMatchObject({ span_type: 'response', response_id: 'resp_1' })
    expect(metadata[1]!['details']).toMatchObject({ span_type: 'generation', model: 'gpt', handoff_from: 'research' })
  })
})
