/**
 * Drives a fuzz run against one listening service: plans from fast-check (reproducible from the run seed and
 * the request's index), a few connections in parallel, every answer judged by the oracle, findings grouped by
 * route and problem with the first example kept, peak RSS sampled, and a valid control request sent between
 * batches to prove the service still answers.
 */
import fc from 'fast-check'
import { buildMutatedRequest, buildSeedRequest, type MutationPlan, mutationPlan } from './mutations.js'
import { judgeAnswer } from './oracle.js'
import { exchange, type WireRequest } from './raw-http.js'
import type { FuzzTarget } from './seed.js'

export interface FuzzFinding {
  key: string
  count: number
  example: { index: number; plan: MutationPlan; request: string; answer: string }
}

export interface FuzzReport {
  target: string
  requests: number
  /** Answers per status class ("2xx", "4xx", "none" = closed or timed out without a status line). */
  statuses: Record<string, number>
  timeouts: number
  findings: FuzzFinding[]
  /** Control requests (valid seeds) that did not get a 2xx between batches. */
  failedControls: number
  peakRssBytes: number
  seconds: number
}

export interface FuzzOptions {
  requests: number
  seed: number
  concurrency?: number
  /** Per-exchange deadline. */
  deadlineMs?: number
  /** Called every `progressEvery` requests. */
  onProgress?: (done: number, report: FuzzReport) => void
  progressEvery?: number
}

const BATCH = 500

export async function runFuzz(target: FuzzTarget, options: FuzzOptions): Promise<FuzzReport> {
  const concurrency = options.concurrency ?? 8
  const deadlineMs = options.deadlineMs ?? 2000
  const started = process.hrtime.bigint()
  const findings = new Map<string, FuzzFinding>()
  const report: FuzzReport = {
    target: target.name,
    requests: 0,
    statuses: {},
    timeouts: 0,
    findings: [],
    failedControls: 0,
    peakRssBytes: process.memoryUsage().rss,
    seconds: 0,
  }
  const control = target.seeds.find((s) => s.method === 'GET' && s.body === undefined) ?? target.seeds[0]
  for (let offset = 0; offset < options.requests; offset += BATCH) {
    const count = Math.min(BATCH, options.requests - offset)
    const plans = fc.sample(mutationPlan, { seed: options.seed + offset, numRuns: count })
    let next = 0
    const worker = async () => {
      while (next < plans.length) {
        const index = next++
        const plan = plans[index] as MutationPlan
        const request = buildMutatedRequest(target.seeds, plan)
        const answer = await exchange(target.port, request, deadlineMs)
        report.requests++
        const klass = answer.status === 0 ? 'none' : `${Math.floor(answer.status / 100)}xx`
        report.statuses[klass] = (report.statuses[klass] ?? 0) + 1
        if (answer.timedOut) report.timeouts++
        const problems = judgeAnswer(answer, target.checkErrorEnvelope)
        const seed = target.seeds[plan.seed % target.seeds.length]
        for (const problem of problems) {
          const key = `${seed?.route ?? '?'} | ${problem}`
          const found = findings.get(key)
          if (found) found.count++
          else
            findings.set(key, {
              key,
              count: 1,
              example: {
                index: offset + index,
                plan,
                request: describe(request),
                answer: `${answer.headerText.split('\r\n')[0] ?? ''} ${answer.body.toString('utf8').slice(0, 400)}`,
              },
            })
        }
      }
    }
    await Promise.all(Array.from({ length: concurrency }, worker))
    report.peakRssBytes = Math.max(report.peakRssBytes, process.memoryUsage().rss)
    if (control) {
      // A generous deadline: a busy machine must not pass for a dead service.
      const answer = await exchange(target.port, buildSeedRequest(control), 15_000)
      if (answer.status < 200 || answer.status >= 300) report.failedControls++
    }
    const done = offset + count
    report.seconds = Number(process.hrtime.bigint() - started) / 1e9
    report.findings = [...findings.values()]
    if (options.onProgress && done % (options.progressEvery ?? 10_000) < BATCH) options.onProgress(done, report)
  }
  report.findings = [...findings.values()].sort((a, b) => b.count - a.count)
  report.peakRssBytes = Math.max(report.peakRssBytes, process.resourceUsage().maxRSS * 1024)
  report.seconds = Number(process.hrtime.bigint() - started) / 1e9
  return report
}

/** The request's first line, headers and the start of its body, for a finding's example. */
function describe(request: WireRequest): string {
  const head = `${request.method} ${request.target.toString('latin1').slice(0, 200)}`
  const headers = request.headers
    .map(([n, v]) => `${n}: ${(typeof v === 'string' ? v : v.toString('latin1')).slice(0, 80)}`)
    .join(' | ')
  return `${head} || ${headers} || ${request.body.toString('latin1').slice(0, 300)}`
}
