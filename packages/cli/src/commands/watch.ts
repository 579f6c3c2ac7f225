/**
 * `acdp watch`: tails the control plane's live event stream (GET /events/stream, or one run's stream) until
 * Ctrl-C, printing one line per event, or one JSON document per line with --json.
 */
import { type Command, parseCommandArgs } from '../command.js'
import { CliError, EXIT } from '../exit-codes.js'
import { openEventStream } from '../http/control-plane-client.js'
import { readSseFrames, type SseFrame } from '../http/sse-frames.js'
import { abbreviate, sanitizeTerminalText } from '../render/text-table.js'
import { controlPlaneOf, resolveStackTarget } from '../stack-target.js'
import { checkBaseUrl, JSON_OPTION, parseIntegerFlag, TARGET_HELP, TARGET_OPTIONS } from './shared-options.js'

/** `acdp watch` (help text below is what `acdp watch --help` prints). */
export const watchCommand: Command = {
  name: 'watch',
  summary: 'tail the control plane’s live event stream',
  help: `Usage: acdp watch [--run ID] [--json] [--count N] [--heartbeats]

Prints events as the control plane broadcasts them (server-sent events), until Ctrl-C (exit 0).

Options:
  --run ID              only events of run ID (GET /runs/:id/events/stream); default: every event (GET /events/stream)
  --json                one JSON document per line: { "event": <name>, "data": <frame data> }
  --count N             exit 0 after N events (heartbeats not counted)
  --heartbeats          also print heartbeat frames
${TARGET_HELP}`,
  async run(args, io) {
    const { values } = parseCommandArgs(
      'watch',
      args,
      {
        ...TARGET_OPTIONS,
        ...JSON_OPTION,
        run: { type: 'string' },
        count: { type: 'string' },
        heartbeats: { type: 'boolean' },
      },
      { min: 0, max: 0, names: '' },
    )
    const count = parseIntegerFlag('count', values.count, 1, 1_000_000)
    const target = controlPlaneOf(
      resolveStackTarget(io, {
        controlPlane: checkBaseUrl('control-plane', values['control-plane']),
        dataDir: values['data-dir'],
      }),
    )
    const stop = new AbortController()
    const signal = AbortSignal.any([io.signal, stop.signal])
    let response: Response
    try {
      response = await openEventStream(io, target, {
        signal,
        ...(values.run === undefined ? {} : { runId: values.run }),
      })
    } catch (error) {
      if (io.signal.aborted) return EXIT.ok
      throw error
    }
    io.stderr(
      `watching ${target.baseUrl}${values.run === undefined ? '/events/stream' : `/runs/${values.run}/events/stream`} (Ctrl-C to stop)\n`,
    )
    let seen = 0
    try {
      for await (const frame of readSseFrames(response.body!)) {
        if (frame.event === 'heartbeat' && !values.heartbeats) continue
        io.stdout(`${values.json ? formatJsonLine(frame) : formatHumanLine(frame)}\n`)
        if (frame.event === 'shutdown') {
          io.stderr('the control plane is shutting down; stream closed\n')
          return EXIT.ok
        }
        if (frame.event !== 'heartbeat') seen++
        if (count !== undefined && seen >= count) return EXIT.ok
      }
    } catch (error) {
      if (io.signal.aborted) return EXIT.ok
      throw new CliError(
        EXIT.unreachable,
        'stream_failed',
        `event stream failed: ${error instanceof Error ? error.message : String(error)}`,
        {
          cause: error,
        },
      )
    } finally {
      stop.abort()
    }
    if (io.signal.aborted) return EXIT.ok
    throw new CliError(EXIT.unreachable, 'stream_closed', 'the control plane closed the event stream')
  },
}

function parseFrameData(frame: SseFrame): unknown {
  try {
    return JSON.parse(frame.data)
  } catch {
    return frame.data
  }
}

function formatJsonLine(frame: SseFrame): string {
  return JSON.stringify({ event: frame.event, data: parseFrameData(frame) })
}

/** `<ts>  <event>  run=…  ctx=…  agent=…  type=…`, naming only members the frame has. Frame data is attacker-controlled. */
function formatHumanLine(frame: SseFrame): string {
  const data = parseFrameData(frame)
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    return sanitizeTerminalText(`${frame.event}  ${frame.data}`)
  }
  const record = data as Record<string, unknown>
  const text = (name: string) => (typeof record[name] === 'string' ? (record[name] as string) : undefined)
  const parts = [
    text('ts') ?? '-',
    frame.event,
    text('runId') === undefined ? undefined : `run=${text('runId')}`,
    text('ctxId') === undefined ? undefined : `ctx=${text('ctxId')}`,
    text('agentId') === undefined ? undefined : `agent=${abbreviate(text('agentId')!, 20, 6)}`,
    text('contextType') === undefined ? undefined : `type=${text('contextType')}`,
    text('reason') === undefined ? undefined : `reason=${text('reason')}`,
  ]
  return sanitizeTerminalText(parts.filter((part) => part !== undefined).join('  '))
}
