import { describe, expect, it } from 'vitest'
import { type BatchDispatch, SigningBatcher } from './signing-batcher.js'

const bytes = (text: string) => new TextEncoder().encode(text)
const text = (data: Uint8Array) => new TextDecoder().decode(data)
/** A stand-in signature: the message reversed, so each answer is tied to its own message. */
const fakeSign = (message: Uint8Array) => Uint8Array.from(message).reverse()
const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve))

function recording(answer: (messages: readonly Uint8Array[], call: number) => Promise<readonly Uint8Array[]>) {
  const batches: string[][] = []
  const dispatch: BatchDispatch = (messages) => {
    batches.push(messages.map(text))
    return answer(messages, batches.length)
  }
  return { batches, dispatch }
}

describe('SigningBatcher', () => {
  it('hands the requests of one turn over together and answers each with its own signature', async () => {
    const { batches, dispatch } = recording(async (messages) => messages.map(fakeSign))
    const batcher = new SigningBatcher(dispatch)
    const messages = Array.from({ length: 12 }, (_, i) => `m${i}`)
    const signatures = await Promise.all(messages.map((m) => batcher.sign(bytes(m))))
    expect(batches).toEqual([messages])
    expect(batcher.handOffs).toBe(1)
    expect(signatures.map(text)).toEqual(messages.map((m) => [...m].reverse().join('')))
  })

  it('starts a new batch in the next turn', async () => {
    const { batches, dispatch } = recording(async (messages) => messages.map(fakeSign))
    const batcher = new SigningBatcher(dispatch)
    const first = [batcher.sign(bytes('a')), batcher.sign(bytes('b'))]
    await nextTurn()
    const second = batcher.sign(bytes('c'))
    await Promise.all([...first, second])
    expect(batches).toEqual([['a', 'b'], ['c']])
    expect(batcher.handOffs).toBe(2)
  })

  it('a failed batch rejects only its own requests', async () => {
    const { dispatch } = recording(async (messages, call) => {
      if (call === 1) throw new Error('signer failed')
      return messages.map(fakeSign)
    })
    const batcher = new SigningBatcher(dispatch)
    const failed = Promise.allSettled([batcher.sign(bytes('a')), batcher.sign(bytes('b'))])
    await nextTurn()
    const fine = [batcher.sign(bytes('c')), batcher.sign(bytes('d'))]
    for (const outcome of await failed) {
      expect(outcome).toMatchObject({ status: 'rejected', reason: { message: 'signer failed' } })
    }
    expect((await Promise.all(fine)).map(text)).toEqual(['c', 'd'])
  })

  it('rejects a batch whose dispatch throws or answers the wrong number of signatures', async () => {
    const throwing = new SigningBatcher(() => {
      throw new Error('no thread')
    })
    await expect(throwing.sign(bytes('a'))).rejects.toThrow('no thread')
    const short = new SigningBatcher(async (messages) => messages.slice(1).map(fakeSign))
    const requests = [short.sign(bytes('a')), short.sign(bytes('b'))]
    for (const outcome of await Promise.allSettled(requests)) {
      expect(outcome).toMatchObject({
        status: 'rejected',
        reason: { message: expect.stringContaining('1 signatures for 2') },
      })
    }
  })

  it('closing rejects the requests not yet handed over, and every later one', async () => {
    const { batches, dispatch } = recording(async (messages) => messages.map(fakeSign))
    const batcher = new SigningBatcher(dispatch)
    const queued = Promise.allSettled([batcher.sign(bytes('a')), batcher.sign(bytes('b'))])
    batcher.close()
    for (const outcome of await queued) {
      expect(outcome).toMatchObject({
        status: 'rejected',
        reason: { message: expect.stringContaining('closed before signing') },
      })
    }
    await expect(batcher.sign(bytes('c'))).rejects.toThrow('closed')
    await nextTurn()
    expect(batches).toEqual([])
  })
})
