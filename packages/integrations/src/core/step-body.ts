/**
 * A framework step as a context body (RFC-ACDP-0002 members): a title and summary a person can read in the
 * console, a namespaced `type`, tags naming the framework and the step kind, and the step's output in
 * `metadata.output`. The body carries no `derived_from` yet: the recorder adds it once the parents' ctx_ids are
 * known.
 */
import { createHash } from 'node:crypto'
import type { Framework, StepInput } from './recorder-config.js'

/** Members of the title, summary and output the schema caps (RFC-ACDP-0002 §3: title 500, summary 1,000). */
const TITLE_MAX = 500
const SUMMARY_MAX = 1_000

export interface StepBodyOptions {
  framework: Framework
  /** 1-based position of the step in the recorder. */
  sequence: number
  runId: string
  maxOutputBytes: number
  domain?: string
  type: string
}

/** Builds the body of one step's context (before redaction and `derived_from`). */
export function buildStepBody(step: StepInput, options: StepBodyOptions): Record<string, unknown> {
  const { text, truncated, sha256, bytes } = serializeOutput(step.output, options.maxOutputBytes)
  const agent = step.agent === undefined || step.agent === step.name ? '' : ` (${step.agent})`
  const body: Record<string, unknown> = {
    title: cut(`${step.kind} ${step.name}${agent}`, TITLE_MAX),
    type: options.type,
    summary: cut(summaryOf(step.output, text), SUMMARY_MAX),
    tags: [`framework.${options.framework}`, `step.${step.kind}`],
    metadata: {
      integration: {
        framework: options.framework,
        kind: step.kind,
        name: step.name,
        ...(step.agent === undefined ? {} : { agent: step.agent }),
        sequence: options.sequence,
        run_id: options.runId,
      },
      output: truncated ? text : step.output === undefined ? null : JSON.parse(text),
      output_bytes: bytes,
      output_sha256: sha256,
      ...(truncated ? { output_truncated: true } : {}),
      ...(step.details === undefined ? {} : { details: step.details }),
    },
  }
  if (options.domain !== undefined) body['domain'] = options.domain
  return body
}

/** Default `type`: the step kind under the `agent` namespace, e.g. `agent:model`. */
export function defaultStepType(step: StepInput): string {
  return `agent:${step.kind}`
}

function serializeOutput(
  output: unknown,
  maxBytes: number,
): { text: string; truncated: boolean; sha256: string; bytes: number } {
  let text: string
  try {
    text = JSON.stringify(output === undefined ? null : output) ?? 'null'
  } catch {
    // Cycles or BigInts: keep what a person would read rather than fail the step.
    text = JSON.stringify(String(output))
  }
  const buffer = Buffer.from(text, 'utf8')
  const sha256 = createHash('sha256').update(buffer).digest('hex')
  if (buffer.byteLength <= maxBytes) return { text, truncated: false, sha256, bytes: buffer.byteLength }
  // Cut on a character boundary: decoding a prefix may end in half a code point, which the decoder drops.
  const prefix = new TextDecoder('utf-8').decode(buffer.subarray(0, maxBytes)).replace(/\uFFFD$/, '')
  return { text: prefix, truncated: true, sha256, bytes: buffer.byteLength }
}

function summaryOf(output: unknown, serialized: string): string {
  if (typeof output === 'string') return output === '' ? '(empty)' : output
  return serialized
}

function cut(text: string, max: number): string {
  const chars = [...text]
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join('')}…`
}
