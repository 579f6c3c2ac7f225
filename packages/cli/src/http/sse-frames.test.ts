import { describe, expect, it } from 'vitest'
import { MAX_SSE_FRAME_BYTES, readSseFrames, type SseFrame } from './sse-frames.js'

function streamOf(chunks: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder()
  return new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk))
      controller.close()
    },
  })
}

async function collect(chunks: string[]): Promise<SseFrame[]> {
  const frames: SseFrame[] = []
  for await (const frame of readSseFrames(streamOf(chunks))) frames.push(frame)
  return frames
}

describe('readSseFrames', () => {
  it('reads event, data and id of each frame', async () => {
    expect(await collect(['id: 1\nevent: context_published\ndata: {"type":"context_published"}\n\n'])).toEqual([
      { event: 'context_published', data: '{"type":"context_published"}', id: '1' },
    ])
  })

  it.each([
    ['LF', 'event: a\ndata: x\n\n'],
    ['CRLF', 'event: a\r\ndata: x\r\n\r\n'],
    ['CR', 'event: a\rdata: x\r\r'],
  ])('accepts %s line endings', async (_name, text) => {
    expect(await collect([text])).toEqual([{ event: 'a', data: 'x' }])
  })

  it('reassembles a frame split across chunks, including a CRLF split in the middle', async () => {
    expect(await collect(['eve', 'nt: a\r', '\ndata: {"n"', ':1}\r\n', '\r\n'])).toEqual([
      { event: 'a', data: '{"n":1}' },
    ])
  })

  it('joins multi-line data, defaults the event name, and skips comments and data-less frames', async () => {
    expect(await collect([': keep-alive\n\nevent: ping\n\ndata: one\ndata: two\n\n'])).toEqual([
      { event: 'message', data: 'one\ntwo' },
    ])
  })

  it('drops a trailing frame that never completed', async () => {
    expect(await collect(['data: complete\n\ndata: partial'])).toEqual([{ event: 'message', data: 'complete' }])
  })

  it('stops with an error on a frame over the size cap', async () => {
    const huge = `data: ${'x'.repeat(MAX_SSE_FRAME_BYTES)}`
    await expect(collect([huge])).rejects.toThrow(/exceeds/)
  })
})
