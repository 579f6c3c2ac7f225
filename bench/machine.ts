/**
 * What the benches print about the machine they ran on, and how contended its vCPUs were while they ran.
 *
 * The load average says how many runnable threads this guest had; it cannot see the host. On the shared VM these
 * benches run on, the registry's CPU time per trust-on publish was 580–663 µs in session 5 and 355–367 µs in
 * session 6 on nearly the same code at similar load averages (docs/performance/journal.md, "Issue 9's targets, session
 * 6"): a vCPU whose host core is shared with other guests does less per second of CPU time. The guest sees only
 * part of that, as steal time (the host ran something else while this guest wanted the vCPU), so every phase
 * prints it beside its rates; a host sharing a core's caches or its sibling hyperthread shows no steal at all.
 */
import { readFileSync } from 'node:fs'
import { cpus, loadavg, totalmem } from 'node:os'

export interface MachineDescription {
  cpu: string
  cores: number
  memoryGiB: number
  node: string
  loadAverage1m: number
  loadAverage5m: number
}

export function describeMachine(): MachineDescription {
  const [one = 0, five = 0] = loadavg()
  return {
    cpu: cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    node: process.version,
    loadAverage1m: one,
    loadAverage5m: five,
  }
}

export function formatMachine(machine: MachineDescription): string {
  return (
    `machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGiB} GiB, Node ${machine.node}, ` +
    `load average ${machine.loadAverage1m.toFixed(2)} (1 min) ${machine.loadAverage5m.toFixed(2)} (5 min)`
  )
}

/** The whole machine's CPU time counters (all vCPUs), in the kernel's ticks. */
export interface CpuTimes {
  /** user + nice + system + irq + softirq (guest time is already inside user and nice). */
  busy: number
  /** idle + iowait */
  idle: number
  steal: number
}

/**
 * The aggregate `cpu` line of a /proc/stat text (proc(5): user nice system idle iowait irq softirq steal guest
 * guest_nice), or undefined when there is none.
 */
export function parseProcStat(text: string): CpuTimes | undefined {
  const line = /^cpu\s+([\d\s]+)$/m.exec(text)?.[1]
  if (line === undefined) return undefined
  const [user = 0, nice = 0, system = 0, idle = 0, iowait = 0, irq = 0, softirq = 0, steal = 0] = line
    .trim()
    .split(/\s+/)
    .map(Number)
  return { busy: user + nice + system + irq + softirq, idle: idle + iowait, steal }
}

/** This machine's counters now; undefined off Linux. */
export function readCpuTimes(): CpuTimes | undefined {
  try {
    return parseProcStat(readFileSync('/proc/stat', 'utf8'))
  } catch {
    return undefined
  }
}

/** Shares of all vCPU time between two readings, in percent; undefined when either reading is missing. */
export interface CpuShares {
  busyPercent: number
  idlePercent: number
  stealPercent: number
}

export function cpuSharesBetween(before: CpuTimes | undefined, after: CpuTimes | undefined): CpuShares | undefined {
  if (before === undefined || after === undefined) return undefined
  const busy = after.busy - before.busy
  const idle = after.idle - before.idle
  const steal = after.steal - before.steal
  const total = busy + idle + steal
  if (total <= 0) return undefined
  return { busyPercent: (100 * busy) / total, idlePercent: (100 * idle) / total, stealPercent: (100 * steal) / total }
}

export function formatCpuShares(shares: CpuShares | undefined): string {
  if (shares === undefined) return 'vCPU shares unknown (no /proc/stat)'
  return (
    `vCPUs busy ${shares.busyPercent.toFixed(0)} %, idle ${shares.idlePercent.toFixed(0)} %, ` +
    `stolen by the host ${shares.stealPercent.toFixed(1)} %`
  )
}
