/**
 * Gives memory back once the process goes idle after a burst of work (docs/control-plane/memory.md, "What holds
 * the memory after sustained ingest").
 *
 * Under sustained ingest V8 grows its heap to several times what stays live, and when the load stops it keeps
 * the pages it no longer uses (measured: 200+ MiB resident in V8 pages against a heap of 50 MiB after collection).
 * It returns them only on a memory-reducing collection, which nothing triggers in an idle server. This runs one —
 * V8's low-memory notification, through an in-process inspector session (no port is opened) — when both hold:
 * - the event loop was idle over the last `idleChecks` checks (`eventLoopUtilization` below `maxUtilization`), so
 *   the pause never lands on traffic;
 * - the resident set is at least `minGrowthBytes` above what it was after the previous release (or at start), so
 *   an idle server that grew nothing is never collected again and again.
 */
import type { Session } from 'node:inspector'
import { performance } from 'node:perf_hooks'

export interface IdleMemoryReleaseOptions {
  /** How often the loop is sampled. */
  checkEveryMs: number
  /** Consecutive idle samples before a release. */
  idleChecks: number
  /** Event-loop utilization (0–1) at or below which a sample counts as idle. */
  maxUtilization: number
  /** Growth of the resident set since the last release that makes a release worth its pause. */
  minGrowthBytes: number
}

export interface IdleMemoryReleaseProbes {
  /** The resident set in bytes (process.memoryUsage.rss). */
  rss: () => number
  /** Event-loop utilization since the previous call (0–1). */
  utilization: () => number
  /** Runs a memory-reducing collection. */
  release: () => Promise<void>
}

export interface IdleMemoryRelease {
  /** One sample; exported for tests, the timer calls it. Resolves true when it released memory. */
  check(): Promise<boolean>
  /** How many releases ran. */
  readonly releases: number
  stop(): void
}

export const DEFAULT_IDLE_MEMORY_RELEASE: IdleMemoryReleaseOptions = {
  checkEveryMs: 5000,
  idleChecks: 2,
  maxUtilization: 0.05,
  minGrowthBytes: 32 * 1024 * 1024,
}

export function startIdleMemoryRelease(
  options: IdleMemoryReleaseOptions,
  probes: IdleMemoryReleaseProbes = defaultProbes(),
  schedule = true,
): IdleMemoryRelease {
  let baseline = probes.rss()
  let idleSamples = 0
  let releases = 0
  let running = false

  async function check(): Promise<boolean> {
    if (running) return false
    idleSamples = probes.utilization() <= options.maxUtilization ? idleSamples + 1 : 0
    const rss = probes.rss()
    // The resident set may also fall on its own (glibc trims, V8 shrinks): follow it down, never up.
    if (rss < baseline) baseline = rss
    if (idleSamples < options.idleChecks || rss - baseline < options.minGrowthBytes) return false
    running = true
    try {
      await probes.release()
      releases += 1
    } finally {
      running = false
      idleSamples = 0
      baseline = probes.rss()
    }
    return true
  }

  const timer = schedule
    ? setInterval(() => {
        check().catch(() => undefined) // a failed collection is retried at the next idle period
      }, options.checkEveryMs)
    : undefined
  timer?.unref()

  return {
    check,
    get releases() {
      return releases
    },
    stop() {
      if (timer !== undefined) clearInterval(timer)
    },
  }
}

function defaultProbes(): IdleMemoryReleaseProbes {
  let previous = performance.eventLoopUtilization()
  return {
    rss: () => process.memoryUsage.rss(),
    utilization() {
      const now = performance.eventLoopUtilization()
      const delta = performance.eventLoopUtilization(now, previous)
      previous = now
      return delta.utilization
    },
    release: lowMemoryNotification,
  }
}

/** V8's low-memory notification (HeapProfiler.collectGarbage): full, memory-reducing collections. */
async function lowMemoryNotification(): Promise<void> {
  const inspector = await import('node:inspector')
  const session: Session = new inspector.Session()
  session.connect()
  await new Promise<void>((resolve, reject) => {
    session.post('HeapProfiler.collectGarbage', (error) => {
      // Not from inside the callback (nor a microtask of it): V8's heap-profiler agent still holds its lock there,
      // and disconnecting would wait on it forever (measured: the process hung).
      setImmediate(() => {
        session.disconnect()
        if (error) reject(error)
        else resolve()
      })
    })
  })
}
