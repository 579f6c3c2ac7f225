/**
 * Vercel AI SDK adapter: a language-model middleware (`wrapLanguageModel({ model, middleware })`) that records
 * every model call of a `generateText` / `streamText` as a context, and every tool result the SDK feeds back to
 * the model as a context of its own.
 *
 * Lineage: a model call is derived from the contexts named in the call's `providerOptions.acdp.derivedFrom`
 * (another agent's output, see {@link acdpInputs}) and from the tool results in its prompt; a tool result is
 * derived from the model call that asked for it (matched by the SDK's toolCallId). Each recorded call's local
 * record id comes back in the result's `providerMetadata.acdp.record` ({@link recordOf}), which is what the next
 * agent names as its input.
 */
import type { LanguageModelMiddleware } from 'ai'
import { type Recorder, createRecorder } from '../core/recorder.js'
import type { RecorderConfig, RecordHandle, RecordRef } from '../core/recorder-config.js'

type WrapGenerate = NonNullable<LanguageModelMiddleware['wrapGenerate']>
type CallParams = Parameters<WrapGenerate>[0]['params']
type GenerateResult = Awaited<ReturnType<WrapGenerate>>
type WrapStream = NonNullable<LanguageModelMiddleware['wrapStream']>
type StreamResult = Awaited<ReturnType<WrapStream>>
type StreamPart = StreamResult['stream'] extends ReadableStream<infer Part> ? Part : never

/** The provider-options / provider-metadata namespace the middleware reads and writes. */
export const ACDP_PROVIDER_KEY = 'acdp'

/** Tool calls a middleware remembers (awaiting their result, or recorded), oldest forgotten first. */
const MAX_TRACKED_TOOL_CALLS = 10_000

/** Options of {@link acdpMiddleware}. */
export interface AcdpMiddlewareOptions {
  /** The agent this model speaks for: names its steps and selects its key in `keys`. Default the model id. */
  agent?: string
  /** Key role, when it differs from `agent`. */
  role?: string
}

/** A recorder for AI SDK steps (the core recorder, tagged `ai-sdk`). */
export function createAiSdkRecorder(config: RecorderConfig): Recorder {
  return createRecorder('ai-sdk', config)
}

/**
 * The middleware. Pass one recorder to every agent's middleware so all of them share the run.
 *
 * @throws (from the wrapped call) RecordingError under `record-or-fail` when a step's context is not published.
 */
export function acdpMiddleware(recorder: Recorder, options: AcdpMiddlewareOptions = {}): LanguageModelMiddleware {
  // toolCallId → the model call that asked for it, until its result has been recorded.
  const callers = new Map<string, { handle: RecordHandle; agent: string }>()
  const recordedResults = new Map<string, RecordHandle>()

  // Both maps are bounded: a tool call whose result never comes back (the loop stopped) must not be kept forever.
  const remember = <V>(map: Map<string, V>, key: string, value: V) => {
    map.set(key, value)
    if (map.size > MAX_TRACKED_TOOL_CALLS) map.delete(map.keys().next().value as string)
  }

  const agentOf = (modelId: string) => options.agent ?? modelId
  const role = options.role === undefined ? {} : { role: options.role }

  /** Records the tool results in the prompt not recorded yet; returns the handles of all of them. */
  const recordToolResults = async (params: CallParams): Promise<RecordHandle[]> => {
    const handles: RecordHandle[] = []
    for (const message of params.prompt) {
      if (message.role !== 'tool') continue
      for (const part of message.content) {
        if (part.type !== 'tool-result') continue
        const known = recordedResults.get(part.toolCallId)
        if (known !== undefined) {
          handles.push(known)
          continue
        }
        const caller = callers.get(part.toolCallId)
        if (caller === undefined) continue // a result from before this recorder saw the conversation
        const handle = await recorder.record({
          kind: 'tool',
          name: part.toolName,
          agent: caller.agent,
          ...role,
          output: part.output.type === 'json' || part.output.type === 'text' ? part.output.value : part.output,
          derivedFrom: [caller.handle],
          details: { tool_call_id: part.toolCallId, output_type: part.output.type },
        })
        callers.delete(part.toolCallId)
        if (handle !== undefined) {
          remember(recordedResults, part.toolCallId, handle)
          handles.push(handle)
        }
      }
    }
    return handles
  }

  const recordCall = async (
    params: CallParams,
    modelId: string,
    toolResults: RecordHandle[],
    content: { text: string; toolCalls: Array<{ toolCallId: string; toolName: string; input: string }> },
    finishReason: unknown,
  ): Promise<RecordHandle | undefined> => {
    const agent = agentOf(modelId)
    const handle = await recorder.record({
      kind: 'model',
      name: agent,
      agent,
      ...role,
      output: {
        text: content.text,
        ...(content.toolCalls.length === 0
          ? {}
          : {
              tool_calls: content.toolCalls.map((call) => ({
                id: call.toolCallId,
                tool: call.toolName,
                input: parseInput(call.input),
              })),
            }),
      },
      derivedFrom: [...inputsOf(params), ...toolResults],
      details: { model_id: modelId, finish_reason: toJson(finishReason) },
    })
    if (handle !== undefined) {
      for (const call of content.toolCalls) remember(callers, call.toolCallId, { handle, agent })
    }
    return handle
  }

  return {
    specificationVersion: 'v4',
    async wrapGenerate({ doGenerate, params, model }) {
      const toolResults = await recordToolResults(params)
      const result = await doGenerate()
      const text = result.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('')
      const toolCalls = result.content.flatMap((part) => (part.type === 'tool-call' ? [part] : []))
      const handle = await recordCall(params, model.modelId, toolResults, { text, toolCalls }, result.finishReason)
      return handle === undefined ? result : withRecord(result, handle)
    },
    async wrapStream({ doStream, params, model }) {
      const toolResults = await recordToolResults(params)
      const result = await doStream()
      let text = ''
      const toolCalls: Array<{ toolCallId: string; toolName: string; input: string }> = []
      const stream = result.stream.pipeThrough(
        new TransformStream<StreamPart, StreamPart>({
          async transform(part, controller) {
            if (part.type === 'text-delta') text += part.delta
            if (part.type === 'tool-call') toolCalls.push(part)
            if (part.type !== 'finish') return controller.enqueue(part)
            // Recorded at the finish part, so its metadata can name the record (and a record-or-fail failure
            // errors the stream before the SDK reports the step finished).
            const handle = await recordCall(params, model.modelId, toolResults, { text, toolCalls }, part.finishReason)
            controller.enqueue(
              handle === undefined ? part : { ...part, providerMetadata: metadataWith(part.providerMetadata, handle) },
            )
          },
        }),
      )
      return { ...result, stream }
    },
  }
}

/**
 * `providerOptions` for a call whose input came from earlier records: `generateText({ …, providerOptions:
 * acdpInputs(research) })`. Accepts handles, results carrying `providerMetadata.acdp.record`, local ids and ctx_ids.
 */
export function acdpInputs(
  ...inputs: Array<RecordRef | { providerMetadata?: unknown } | undefined>
): Record<string, { derivedFrom: string[] }> {
  const refs = inputs.flatMap((input) => {
    if (input === undefined) return []
    if (typeof input === 'string') return [input]
    if ('id' in input && typeof input.id === 'string') return [input.id]
    const record = recordOf(input as { providerMetadata?: unknown })
    return record === undefined ? [] : [record]
  })
  return { [ACDP_PROVIDER_KEY]: { derivedFrom: refs } }
}

/** The local record id the middleware put in a result's (or a step's) `providerMetadata`, if any. */
export function recordOf(result: { providerMetadata?: unknown }): string | undefined {
  const metadata = result.providerMetadata as Record<string, Record<string, unknown> | undefined> | undefined
  const record = metadata?.[ACDP_PROVIDER_KEY]?.['record']
  return typeof record === 'string' ? record : undefined
}

function inputsOf(params: CallParams): string[] {
  const derived = params.providerOptions?.[ACDP_PROVIDER_KEY]?.['derivedFrom']
  return Array.isArray(derived) ? derived.filter((ref): ref is string => typeof ref === 'string') : []
}

function withRecord(result: GenerateResult, handle: RecordHandle): GenerateResult {
  return { ...result, providerMetadata: metadataWith(result.providerMetadata, handle) }
}

function metadataWith<T extends Record<string, Record<string, unknown>> | undefined>(
  metadata: T,
  handle: RecordHandle,
): Record<string, never> {
  return { ...(metadata ?? {}), [ACDP_PROVIDER_KEY]: { record: handle.id } } as unknown as Record<string, never>
}

function parseInput(input: string): unknown {
  try {
    return JSON.parse(input)
  } catch {
    return input
  }
}

function toJson(value: unknown): unknown {
  return value === undefined ? null : JSON.parse(JSON.stringify(value))
}
