/**
 * OpenAI Agents SDK adapter: a TracingProcessor (`addTraceProcessor(processor)`) that turns the spans of a run
 * into contexts — each model response (generation and response spans) and each tool call (function spans) —
 * with `derived_from` following the run: a model response derives from what the agent had before it (the tool
 * results of its previous turn, or the context it was handed), a tool call from the response that asked for it,
 * and a handoff is an edge: the receiving agent's first response derives from the handing agent's last context.
 *
 * The SDK does not wait for tracing processors (span.end() fires onSpanEnd and goes on), so a processor cannot
 * fail the span itself. Under `record-or-fail` the failure surfaces where the caller waits: {@link runRecorded}
 * (or `settle()`) throws a RecordingError once the run's publications settle, if any of them failed.
 */
import type { Model, Span, SpanData, Trace, TracingProcessor } from '@openai/agents'
import { withGenerationSpan } from '@openai/agents'
import { createRecorder, type Recorder } from '../core/recorder.js'
import { type RecorderConfig, RecordingError, type RecordRef, type StepInput } from '../core/recorder-config.js'

type Refs = Promise<RecordRef[]>

/** What the processor knows about one agent span while it runs. */
interface AgentState {
  name: string
  /** What the next model response derives from. */
  frontier: Refs
  /** The last model response's refs (what a tool call derives from). */
  lastModel: Refs
  /** Tool calls since the last model response. */
  tools: Refs[]
  /** The agent that handed over to this one, if any. */
  handoffFrom?: string
}

interface TraceState {
  agents: Map<string, AgentState>
  parents: Map<string, string | null>
  /** `to_agent` → the handing agent's refs and name, until the receiving agent span starts. */
  handoffs: Map<string, { refs: Refs; from: string }>
}

/** A recorder for Agents SDK spans (the core recorder, tagged `openai-agents`). */
export function createAgentsRecorder(config: RecorderConfig): Recorder {
  return createRecorder('openai-agents', config)
}

export class AcdpTracingProcessor implements TracingProcessor {
  readonly #recorder: Recorder
  readonly #traces = new Map<string, TraceState>()
  readonly #pending = new Set<Promise<unknown>>()
  #failures: RecordingError[] = []

  constructor(recorder: Recorder) {
    this.#recorder = recorder
  }

  get recorder(): Recorder {
    return this.#recorder
  }

  async onTraceStart(trace: Trace): Promise<void> {
    this.#traces.set(trace.traceId, { agents: new Map(), parents: new Map(), handoffs: new Map() })
  }

  async onTraceEnd(trace: Trace): Promise<void> {
    this.#traces.delete(trace.traceId)
  }

  async onSpanStart(span: Span<SpanData>): Promise<void> {
    const trace = this.#traceOf(span)
    trace.parents.set(span.spanId, span.parentId)
    const data = span.spanData
    if (data.type !== 'agent') return
    const handoff = trace.handoffs.get(data.name)
    trace.handoffs.delete(data.name)
    const inputs: Refs = handoff?.refs ?? Promise.resolve([])
    trace.agents.set(span.spanId, {
      name: data.name,
      frontier: inputs,
      lastModel: inputs,
      tools: [],
      ...(handoff === undefined ? {} : { handoffFrom: handoff.from }),
    })
  }

  async onSpanEnd(span: Span<SpanData>): Promise<void> {
    const trace = this.#traceOf(span)
    const data = span.spanData
    const agent = this.#agentOf(trace, span)
    if (data.type === 'handoff') {
      if (agent !== undefined && data.to_agent !== undefined) {
        trace.handoffs.set(data.to_agent, { refs: currentRefs(agent), from: data.from_agent ?? agent.name })
      }
      return
    }
    if (agent === undefined) return
    if (data.type === 'generation' || data.type === 'response') {
      const output = data.type === 'generation' ? data.output : data._response?.['output']
      if (output === undefined) return // a model that reported nothing (tracing of sensitive data off)
      const parents = currentRefs(agent)
      const handoffFrom = agent.handoffFrom
      delete agent.handoffFrom
      const refs = this.#chain(parents, {
        kind: 'model',
        name: agent.name,
        agent: agent.name,
        output: summarizeModelOutput(output),
        details: {
          span_type: data.type,
          ...(data.type === 'generation' && data.model !== undefined ? { model: data.model } : {}),
          ...(data.type === 'response' && data.response_id !== undefined ? { response_id: data.response_id } : {}),
          ...(handoffFrom === undefined ? {} : { handoff_from: handoffFrom }),
          ...(span.error === null ? {} : { error: span.error.message }),
        },
      })
      agent.frontier = refs
      agent.lastModel = refs
      agent.tools = []
      return
    }
    if (data.type === 'function') {
      const refs = this.#chain(agent.lastModel, {
        kind: 'tool',
        name: data.name,
        agent: agent.name,
        output: { input: parseJson(data.input), output: parseJson(data.output) },
        details: span.error === null ? {} : { error: span.error.message },
      })
      agent.tools.push(refs)
    }
  }

  async shutdown(): Promise<void> {
    await this.forceFlush()
  }

  async forceFlush(): Promise<void> {
    while (this.#pending.size > 0) await Promise.all([...this.#pending])
    await this.#recorder.flush()
  }

  /**
   * Waits for every publication so far; under `record-or-fail` throws the first failure since the last call.
   *
   * @throws RecordingError
   */
  async settle(): Promise<void> {
    await this.forceFlush()
    const [first] = this.#failures
    this.#failures = []
    if (first !== undefined && this.#recorder.failurePolicy === 'record-or-fail') throw first
  }

  /** Records a step once its parents are known; resolves with the refs the next step derives from. */
  #chain(parents: Refs, step: Omit<StepInput, 'derivedFrom'>): Refs {
    const refs = parents.then(async (derivedFrom) => {
      try {
        const handle = await this.#recorder.record({ ...step, derivedFrom })
        // A step the filter skips passes its parents on, so lineage goes through it.
        return handle === undefined ? derivedFrom : [handle]
      } catch (error) {
        if (error instanceof RecordingError) this.#failures.push(error)
        else this.#failures.push(new RecordingError(String(error), 'publish_failed', { cause: error }))
        return derivedFrom
      }
    })
    this.#pending.add(refs)
    void refs.finally(() => this.#pending.delete(refs))
    return refs
  }

  #traceOf(span: Span<SpanData>): TraceState {
    let trace = this.#traces.get(span.traceId)
    if (trace === undefined) {
      trace = { agents: new Map(), parents: new Map(), handoffs: new Map() }
      this.#traces.set(span.traceId, trace)
    }
    return trace
  }

  /** The nearest enclosing agent span's state (a span may sit under turn or task spans). */
  #agentOf(trace: TraceState, span: Span<SpanData>): AgentState | undefined {
    let id: string | null | undefined = span.parentId
    for (let depth = 0; id != null && depth < 64; depth += 1) {
      const agent = trace.agents.get(id)
      if (agent !== undefined) return agent
      id = trace.parents.get(id)
    }
    return undefined
  }
}

/**
 * Runs `work` (e.g. `() => run(agent, input)`) and waits for its publications; under `record-or-fail` a failed
 * publication fails the run here.
 *
 * @throws RecordingError (record-or-fail) after `work` resolved, when a context of the run was not published.
 */
export async function runRecorded<T>(processor: AcdpTracingProcessor, work: () => Promise<T>): Promise<T> {
  const result = await work()
  await processor.settle()
  return result
}

/**
 * Wraps a Model that emits no generation span of its own (a custom or scripted model) so each response is
 * traced the way the SDK's Chat Completions model traces it: a generation span with the request's input and the
 * response's output items. Models that already trace themselves (the OpenAI Responses and Chat Completions
 * models) need no wrapping.
 */
export function tracedModel(model: Model, name = 'model'): Model {
  return {
    ...(model.supportsPromptModelSelection === undefined
      ? {}
      : { supportsPromptModelSelection: model.supportsPromptModelSelection }),
    getResponse: (request) =>
      withGenerationSpan(
        async (span) => {
          const response = await model.getResponse(request)
          span.spanData.output = response.output as unknown as Array<Record<string, unknown>>
          return response
        },
        { data: { model: name } },
      ),
    getStreamedResponse: (request) => model.getStreamedResponse(request),
  }
}

function currentRefs(agent: AgentState): Refs {
  if (agent.tools.length === 0) return agent.frontier
  return Promise.all(agent.tools).then((lists) => [...new Set(lists.flat())])
}

/** Model output items as a person reads them: the text, and the calls (tools, handoffs) it asked for. */
function summarizeModelOutput(output: unknown): { text: string; calls?: Array<{ name: string; arguments: unknown }> } {
  const items = Array.isArray(output) ? output : [output]
  const texts: string[] = []
  const calls: Array<{ name: string; arguments: unknown }> = []
  for (const item of items as Array<Record<string, unknown>>) {
    if (item === null || typeof item !== 'object') continue
    if (item['type'] === 'function_call' && typeof item['name'] === 'string') {
      calls.push({ name: item['name'], arguments: parseJson(item['arguments']) })
      continue
    }
    const content = item['content']
    if (typeof content === 'string') texts.push(content)
    if (Array.isArray(content)) {
      for (const part of content as Array<Record<string, unknown>>) {
        if (typeof part?.['text'] === 'string') texts.push(part['text'])
      }
    }
    // Chat Completions responses: { choices: [{ message: { content, tool_calls } }] }
    const choices = item['choices']
    if (Array.isArray(choices)) {
      const message = (choices[0] as { message?: { content?: unknown } } | undefined)?.message
      if (typeof message?.content === 'string') texts.push(message.content)
    }
  }
  return { text: texts.join('\n'), ...(calls.length === 0 ? {} : { calls }) }
}

function parseJson(value: unknown): unknown {
  if (typeof value !== 'string') return value ?? null
  try {
    return JSON.parse(value)
  } catch {
    return value
  }
}
