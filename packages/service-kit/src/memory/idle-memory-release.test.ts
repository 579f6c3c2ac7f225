import { describe, expect, it } from 'vitest'
import { type IdleMemoryReleaseProbes, startIdleMemoryRelease } from './idle-memory-release.js'

const MiB = 1024 * 1024
const OPTIONS = { checkEveryMs: 1000, idleChecks: 2, maxUtilization: 0.05, minGrowthBytes: 32 * MiB }

/** Probes whose readings the test sets; `release` drops the resident set to `afterRelease`. */
function probes(start: number) {
  const state = { rss: start, utilization: 0, afterRelease: start, released: 0 }
  const fake: IdleMemoryReleaseProbes = {
    rss: () => state.rss,
    utilization: () => state.utilization,
    release: async () => {
      state.released += 1
      state.rss = state.afterRelease
    },
  }
  return { state, fake }
}

describe('startIdleMemoryRelease', () => {
  it('releases once the loop has been idle for the set number of checks after the resident set grew', async () => {
    const { state, fake } = probes(100 * MiB)
    const release = startIdleMemoryRelease(OPTIONS, fake, false)
    state.rss = 300 * MiB
    state.afterRelease = 150 * MiB
    state.utilization = 0.9 // under load: never
    expect(await release.check()).toBe(false)
    state.utilization = 0.01
    expect(await release.check()).toBe(false) // one idle check is not enough
    expect(await release.check()).toBe(true)
    expect(state.released).toBe(1)
    expect(release.releases).toBe(1)
  })

  it('does not collect an idle process again and again when nothing grew since the last release', async () => {
    const { state, fake } = probes(100 * MiB)
    const release = startIdleMemoryRelease(OPTIONS, fake, false)
    state.rss = 300 * MiB
    state.afterRelease = 150 * MiB
    await release.check()
    await release.check()
    expect(state.released).toBe(1)
    for (let i = 0; i < 10; i++) await release.check()
    expect(state.released).toBe(1)
    // Growth past the threshold over the post-release figure releases again (the loop is still idle).
    state.rss = 150 * MiB + 32 * MiB
    expect(await release.check()).toBe(true)
    expect(state.released).toBe(2)
  })

  it('never releases for growth below the threshold, however long the process idles', async () => {
    const { state, fake } = probes(100 * MiB)
    const release = startIdleMemoryRelease(OPTIONS, fake, false)
    state.rss = 100 * MiB + 32 * MiB - 1
    for (let i = 0; i < 10; i++) expect(await release.check()).toBe(false)
    expect(state.released).toBe(0)
  })

  it('a busy check in between restarts the idle count', async () => {
    const { state, fake } = probes(100 * MiB)
    const release = startIdleMemoryRelease(OPTIONS, fake, false)
    state.rss = 300 * MiB
    await release.check()
    state.utilization = 0.5
    await release.check()
    state.utilization = 0
    expect(await release.check()).toBe(false)
    expect(await release.check()).toBe(true)
  })

  it('runs a real collection through the inspector without failing', async () => {
    const release = startIdleMemoryRelease(
      { ...OPTIONS, idleChecks: 1, minGrowthBytes: 0, maxUtilization: 1 },
      undefined,
      false,
    )
    expect(await release.check()).toBe(true)
    // A second one opens a new session after the first disconnected: neither may leave the agent locked.
    expect(await release.check()).toBe(true)
    expect(release.releases).toBe(2)
  })
})
