/**
 * The background schedule (`LOG_WITNESS_SCHEDULE=true`, `start()`): a slot freed by a finished observation is
 * refilled at once while more registries are due, instead of on the next scheduler tick — one claim per tick
 * would cap an instance at `LOG_WITNESS_CONCURRENCY` observations per tick (the 64-per-second ceiling the witness
 * bench hit). The tick timer is faked and never fires here, so only the refill can get past the first claim.
 */
import { testDatabaseTargets } from '@acdp/storage'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { SimulatedRegistry } from './support/log-registry-simulator.js'
import { INTERVAL_SECONDS, openWitnessApp, type WitnessTestApp } from './support/witness-app.js'

const REGISTRIES = 6

describe.each(testDatabaseTargets())('witness schedule on $name', (target) => {
  let t: WitnessTestApp | undefined
  afterEach(async () => {
    await t?.close()
    t = undefined
    vi.useRealTimers()
  })

  it('refills a freed slot at once while registries are due: every one is observed once, one at a time', async () => {
    t = await openWitnessApp(target, { LOG_WITNESS_CONCURRENCY: '1' })
    const registries: SimulatedRegistry[] = []
    for (let i = 0; i < REGISTRIES; i++) registries.push(await t.enroll(`s${i}`, 1 + i))
    await t.app.witness.store.syncCursors(t.deps.clock().getTime())
    // Only the scheduler's interval is faked: sockets, database and promise work run for real.
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] })
    t.app.witness.poller!.start() // the first tick runs now and claims one registry (concurrency 1)
    // Waits on real timeouts (vi.waitFor would advance the faked interval and let the tick claim).
    const observed = async () => {
      const cursors = await Promise.all(
        registries.map(async (r) => (await t!.get(`/registries/${r.authority}/log-witness`)).json()),
      )
      return cursors.map((c) => c.treeSize)
    }
    const expected = registries.map((r) => r.tree.size)
    const deadline = Date.now() + 20_000
    while (JSON.stringify(await observed()) !== JSON.stringify(expected) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    expect(await observed()).toEqual(expected)
    // Each exactly once: the clock stands still, and each registry is next due one interval after it was due.
    for (const registry of registries) expect(registry.hits.get('/log/checkpoint')).toBe(1)
    const state = (await t.get(`/registries/${registries[0]!.authority}/log-witness`)).json()
    expect(Date.parse(state.nextPollAt)).toBe(t.deps.clock().getTime() + INTERVAL_SECONDS * 1000)
  })
})
