import { describe, expect, it } from 'vitest'
import { SseParser } from './sse-parser.js'

describe('SseParser', () => {
  it('yields one frame per blank line with id, event and data', () => {
    const parser = new SseParser()
    expect(parser.push('id: 7\nevent: context_published\ndata: {"a":1}\n\n')).toEqual([
      { id: '7', event: 'context_published', data: '{"a":1}' },
    ])
    expect(parser.lastEventId).toBe('7')
  })

  it('reassembles frames split at every possible byte boundary, with CRLF and CR line ends', () => {
    const text = ': stream open\r\n\r\nid: 1\r\nevent: a\r\ndata: x\r\n\r\nid: 2\revent: b\rdata: y\rdata: z\r\r'
    for (let cut = 0; cut <= text.length; cut++) {
      const parser = new SseParser()
      const frames = [...parser.push(text.slice(0, cut)), ...parser.push(text.slice(cut))]
      expect(frames).toEqual([
        { id: '1', event: 'a', data: 'x' },
        { id: '2', event: 'b', data: 'y\nz' },
      ])
    }
  })

  it('ignores comments and data-less frames, keeps the id across frames, and reads retry', () => {
    const parser = new SseParser()
    const frames = parser.push(': hi\n\nid: 9\n\nretry: 1500\nevent: heartbeat\ndata: {}\n\nretry: soon\n\n')
    expect(frames).toEqual([{ id: '9', event: 'heartbeat', data: '{}' }])
    expect(parser.retryMs).toBe(1500)
  })

  it('defaults the event type to message and ignores an id containing NUL', () => {
    const parser = new SseParser()
    expect(parser.push('id: 3\ndata: q\n\nid: a\u0000b\ndata: r\n\n')).toEqual([
      { id: '3', event: 'message', data: 'q' },
      { id: '3', event: 'message', data: 'r' },
    ])
  })
})
