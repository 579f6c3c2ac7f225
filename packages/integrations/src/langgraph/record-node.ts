/**
 * LangGraph.js adapter: a node wrapper (`builder.addNode('analysis', recordNode(recorder, 'analysis', fn))`) that
 * records each node's output as a context, and a state channel ({@link acdpLineage}) that carries the record ids
 * along the graph's edges.
 *
 * Lineage: LangGraph runs a graph in supersteps (Pregel); a node runs because nodes of the previous superstep
 * wrote to it along its edges. Each wrapped node writes its record id into the `acdp` channel tagged with its
 * superstep; the channel's reducer keeps the writes of one superstep together (a fan-out's branches) and replaces
 * them in the next, so a node reads exactly the records of the superstep that triggered it and derives from them.
 * A node the filter skips passes its parents on; a node that is not wrapped leaves the channel as it was.
 */
import type { LangGraphRunnableConfig } from '@langchain/langgraph'
import { Annotation } from '@langchain/langgraph'
import { createRecorder, type Recorder } from '../core/recorder.js'
import type { RecorderConfig } from '../core/recorder-config.js'

/** The `acdp` channel's value: the record ids written in one superstep. */
export interface LineageMark {
  step: number
  ids: string[]
}

/** The state member the wrapper reads and writes. */
export const ACDP_CHANNEL = 'acdp'

/** Keeps one superstep's writes together, replaces them with the next superstep's. */
export function mergeLineage(previous: LineageMark, next: LineageMark): LineageMark {
  if (next.step === previous.step) return { step: next.step, ids: [...new Set([...previous.ids, ...next.ids])] }
  return next.step > previous.step ? next : previous
}

/**
 * The channel to add to a graph's state: `Annotation.Root({ ...yourState, acdp: acdpLineage })` (or
 * `{ acdp: acdpLineage }` beside the members of `MessagesAnnotation.spec`).
 */
export const acdpLineage = Annotation<LineageMark>({
  reducer: mergeLineage,
  default: () => ({ step: -1, ids: [] }),
})

/** A recorder for LangGraph nodes (the core recorder, tagged `langgraph`). */
export function createLangGraphRecorder(config: RecorderConfig): Recorder {
  return createRecorder('langgraph', config)
}

/** Options of {@link recordNode}. */
export interface RecordNodeOptions<Update> {
  /** Key role (default the node name). */
  role?: string
  /** What of the node's update is the output (default the whole update, messages as `{ role, content }`). */
  output?: (update: Update) => unknown
}

type NodeFunction<State, Update> = (state: State, config: LangGraphRunnableConfig) => Promise<Update> | Update

/**
 * Wraps a node function: runs it, records its update, and adds the record id to the `acdp` channel.
 *
 * @throws (from the node) RecordingError under `record-or-fail` when the context is not published; LangGraph then
 *   fails the node as for any node error.
 */
export function recordNode<State extends { [ACDP_CHANNEL]?: LineageMark }, Update extends object>(
  recorder: Recorder,
  name: string,
  node: NodeFunction<State, Update>,
  options: RecordNodeOptions<Update> = {},
): (state: State, config: LangGraphRunnableConfig) => Promise<Update & { [ACDP_CHANNEL]: LineageMark }> {
  return async (state, config) => {
    const update = await node(state, config)
    const parents = state[ACDP_CHANNEL]?.ids ?? []
    const step = superstepOf(config)
    const handle = await recorder.record({
      kind: 'node',
      name,
      ...(options.role === undefined ? {} : { role: options.role }),
      output: options.output === undefined ? plain(withoutChannel(update)) : options.output(update),
      derivedFrom: parents,
      details: { superstep: step, ...(triggersOf(config) === undefined ? {} : { triggers: triggersOf(config) }) },
    })
    return { ...update, [ACDP_CHANNEL]: { step, ids: handle === undefined ? parents : [handle.id] } }
  }
}

function superstepOf(config: LangGraphRunnableConfig): number {
  const step = config.metadata?.['langgraph_step']
  return typeof step === 'number' ? step : 0
}

function triggersOf(config: LangGraphRunnableConfig): unknown {
  const triggers = config.metadata?.['langgraph_triggers']
  return Array.isArray(triggers) ? triggers : undefined
}

function withoutChannel(update: object): object {
  const { [ACDP_CHANNEL]: _ignored, ...rest } = update as Record<string, unknown>
  return rest
}

/** LangChain messages as `{ role, content }` (their own JSON is the constructor-serialization format). */
function plain(value: unknown, depth = 0): unknown {
  if (depth > 20 || value === null || typeof value !== 'object') return value
  if (Array.isArray(value)) return value.map((item) => plain(item, depth + 1))
  const message = value as { getType?: () => string; content?: unknown; tool_calls?: unknown }
  if (typeof message.getType === 'function' && 'content' in message) {
    const toolCalls =
      Array.isArray(message.tool_calls) && message.tool_calls.length > 0 ? { tool_calls: message.tool_calls } : {}
    return { role: message.getType(), content: message.content, ...toolCalls }
  }
  return Object.fromEntries(Object.entries(value).map(([key, member]) => [key, plain(member, depth + 1)]))
}
