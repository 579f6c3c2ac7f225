/**
 * An injectable DNS for `OutboundPolicy.lookup`: fixed answers per hostname (or a function of the call count,
 * for rebinding tests) and a log of every lookup, so tests can assert how many resolutions happened.
 */
import { isIP } from 'node:net'

export type FakeAnswer = string[] | ((callIndex: number) => string[])

export interface FakeDns {
  lookup: (hostname: string) => Promise<Array<{ address: string; family: 4 | 6 }>>
  /** Hostnames looked up, in order. */
  calls: string[]
}

/** Unknown names reject with an ENOTFOUND-shaped error, as `dns.promises.lookup` does. */
export function createFakeDns(answers: Record<string, FakeAnswer>): FakeDns {
  const calls: string[] = []
  const perName = new Map<string, number>()
  const lookup = async (hostname: string) => {
    calls.push(hostname)
    const index = perName.get(hostname) ?? 0
    perName.set(hostname, index + 1)
    const answer = answers[hostname]
    if (answer === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' })
    const addresses = typeof answer === 'function' ? answer(index) : answer
    return addresses.map((address) => ({ address, family: (isIP(address) === 6 ? 6 : 4) as 4 | 6 }))
  }
  return { lookup, calls }
}
