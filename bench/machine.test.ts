import { describe, expect, it } from 'vitest'
import { cpuSharesBetween, formatCpuShares, parseProcStat } from './machine.js'

const STAT = (fields: string) => `cpu  ${fields}\ncpu0 1 2 3 4 5 6 7 8 0 0\nintr 12345\n`

describe('parseProcStat', () => {
  it('reads the aggregate line: busy without idle, iowait or steal; guest time not counted twice', () => {
    expect(parseProcStat(STAT('10692 48 6383 28295 712 3 302 15 700 9'))).toEqual({
      busy: 10692 + 48 + 6383 + 3 + 302,
      idle: 28295 + 712,
      steal: 15,
    })
  })

  it('accepts kernels that print fewer columns (no steal) and refuses text without the line', () => {
    expect(parseProcStat(STAT('1 2 3 4'))).toEqual({ busy: 6, idle: 4, steal: 0 })
    expect(parseProcStat('cpu0 1 2 3 4\n')).toBeUndefined()
  })
})

describe('cpuSharesBetween', () => {
  it('splits the interval between busy, idle and stolen time', () => {
    const shares = cpuSharesBetween({ busy: 100, idle: 100, steal: 0 }, { busy: 250, idle: 130, steal: 20 })
    expect(shares).toEqual({ busyPercent: 75, idlePercent: 15, stealPercent: 10 })
    expect(formatCpuShares(shares)).toBe('vCPUs busy 75 %, idle 15 %, stolen by the host 10.0 %')
  })

  it('has no answer without two readings or without elapsed ticks', () => {
    expect(cpuSharesBetween(undefined, { busy: 1, idle: 1, steal: 0 })).toBeUndefined()
    expect(cpuSharesBetween({ busy: 1, idle: 1, steal: 0 }, { busy: 1, idle: 1, steal: 0 })).toBeUndefined()
    expect(formatCpuShares(undefined)).toContain('unknown')
  })
})
