import { describe, expect, it } from 'vitest'
import { cutFeedRows, feedPageOf } from './feed-page.js'

interface Row {
  jti: string
  ms: number
}
const rows = (...spec: Array<[string, number]>): Row[] => spec.map(([jti, ms]) => ({ jti, ms }))
const jtis = (cut: { rows: Row[]; hasMore: boolean }) => [cut.rows.map((row) => row.jti), cut.hasMore]

describe('cutFeedRows', () => {
  const never = async (): Promise<never> => {
    throw new Error('asked for the whole millisecond')
  }

  it('a short read is the last page', async () => {
    expect(jtis(await cutFeedRows(rows(['a', 1], ['b', 2]), 3, (r) => r.ms, never))).toEqual([['a', 'b'], false])
  })

  it('a full read ends before the millisecond that continues past the limit', async () => {
    const read = rows(['a', 1], ['b', 2], ['c', 2])
    expect(jtis(await cutFeedRows(read, 2, (r) => r.ms, never))).toEqual([['a'], true])
    const clean = rows(['a', 1], ['b', 2], ['c', 3])
    expect(jtis(await cutFeedRows(clean, 2, (r) => r.ms, never))).toEqual([['a', 'b'], true])
  })

  it('a page that is all one millisecond is handed over as the server reads it whole', async () => {
    const asked: number[] = []
    const cut = await cutFeedRows(
      rows(['a', 5], ['b', 5], ['c', 5]),
      2,
      (r) => r.ms,
      async (ms) => {
        asked.push(ms)
        return { rows: rows(['a', 5], ['b', 5], ['c', 5], ['d', 5]), hasMore: false }
      },
    )
    expect(asked).toEqual([5])
    expect(jtis(cut)).toEqual([['a', 'b', 'c', 'd'], false])
  })
})

describe('feedPageOf', () => {
  const entry = (jti: string, ms: number) => ({ jti, sub: 's', iss: 'i', exp: 9, revoked_at_ms: ms })

  it('names the last millisecond as next_cursor only when more may follow', () => {
    expect(feedPageOf([entry('a', 1), entry('b', 4)], true).next_cursor).toBe(4)
    expect(feedPageOf([entry('a', 1), entry('b', 4)], false).next_cursor).toBeNull()
    expect(feedPageOf([], true)).toEqual({ entries: [], next_cursor: null })
  })
})
