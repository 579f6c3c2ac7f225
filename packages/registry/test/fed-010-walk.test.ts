/**
 * Fixture fed-010 (RFC-ACDP-0006 §4.1 step 7, "Partial-walk reporting") against LIVE registries: two of our
 * registries listening on loopback sockets, one per fixture authority, walked by the SDK's derived_from walker
 * over real HTTP. The graph sizes and the traversal configuration are read from the fixture at test time.
 * Each root lives on registry A and its predecessors on registry B, so every reference is resolved on its own
 * authority; each node is verified end to end (signature, and the registry's receipt against its DID document).
 */
import type { AddressInfo } from 'node:net'
import {
  isProtocolError,
  type WalkControls,
  type WalkDerivedFromOptions,
  type WalkResult,
  type WalkTimers,
  walkDerivedFrom,
} from '@acdp/protocol'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type Fixture,
  hasConformance,
  loadFixtures,
  reportMissingConformance,
} from '../../../test/support/conformance.js'
import {
  createTestRegistry,
  didKeyProducer,
  minimalUnsigned,
  publish,
  signRequest,
  type TestRegistry,
} from './support/registry-harness.js'
import { TRUST_CONFIG } from './support/trust.js'

reportMissingConformance('fed-010 derived_from walk (live registries)')

const fixtures = loadFixtures('fed-010')
const ran = new Set<string>()
const producer = didKeyProducer()

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- fixture JSON is untyped
type Json = Record<string, any>

/** A registry serving `authority` on 127.0.0.1 (an ephemeral port). */
async function liveRegistry(authority: string): Promise<{ r: TestRegistry; url: string }> {
  const r = await createTestRegistry({ config: { ...TRUST_CONFIG, registry: { authority } } })
  await r.app.listen({ host: '127.0.0.1', port: 0 })
  return { r, url: `http://127.0.0.1:${(r.app.server.address() as AddressInfo).port}` }
}

async function publishOn(r: TestRegistry, derivedFrom: string[] = []): Promise<string> {
  const res = await publish(r.app, signRequest(producer, minimalUnsigned(producer, { derived_from: derivedFrom })))
  expect(res.statusCode).toBe(201)
  return (res.json() as { ctx_id: string }).ctx_id
}

/** Controllable walk deadline: the test moves time, nothing sleeps. */
class VirtualTimers implements WalkTimers {
  nowMs = 0
  #pending = new Map<number, { at: number; callback: () => void }>()
  #next = 0
  setTimeout(callback: () => void, ms: number): unknown {
    const handle = this.#next++
    this.#pending.set(handle, { at: this.nowMs + ms, callback })
    return handle
  }
  clearTimeout(handle: unknown): void {
    this.#pending.delete(handle as number)
  }
  advance(ms: number): void {
    this.nowMs += ms
    for (const [handle, timer] of [...this.#pending]) {
      if (timer.at <= this.nowMs) {
        this.#pending.delete(handle)
        timer.callback()
      }
    }
  }
}

function controlsOf(config: Json): WalkControls {
  return {
    maxDepth: config.max_depth,
    maxTotalNodes: config.max_total_nodes,
    maxFanoutPerContext: config.max_fanout_per_context,
    totalWalkTimeoutMs: config.total_walk_timeout_seconds * 1000,
  }
}

async function abortReason(walk: Promise<WalkResult>): Promise<string> {
  const error = await walk.then(
    () => undefined,
    (thrown: unknown) => thrown,
  )
  expect(isProtocolError(error) && error.code).toBe('cross_registry_resolution_failed')
  return String((error as { details?: { reason?: unknown } }).details?.reason)
}

describe.runIf(hasConformance)('fed-010: truncated derived_from walks are reported, against live registries', () => {
  // Read in beforeAll: without the spec the suite is skipped, but its body is still collected.
  let fx: Fixture
  let input: Json
  let authorityA: string
  let authorityB: string
  let config: Json
  let fanoutCount: number
  let depthCase: Json
  let timeoutCase: Json
  let a: { r: TestRegistry; url: string }
  let b: { r: TestRegistry; url: string }
  let walkOptions: WalkDerivedFromOptions
  let wideRoot: string
  let widePredecessors: string[]

  beforeAll(async () => {
    fx = fixtures[0] as Fixture
    input = fx.input as Json
    authorityA = new URL(input.walk_root.replace(/^acdp:/, 'https:')).host
    authorityB = new URL(String(input.graph_mock.predecessors).replace(/^acdp:/, 'https:')).host
    config = input.traversal_config as Json
    fanoutCount = input.graph_mock.root_derived_from_count as number
    depthCase = (input.additional_test_cases as Json[]).find((c) => c.control === 'max_depth') as Json
    timeoutCase = (input.additional_test_cases as Json[]).find((c) => c.control === 'total_walk_timeout') as Json
    a = await liveRegistry(authorityA)
    b = await liveRegistry(authorityB)
    const urls: Record<string, string> = { [authorityA]: a.url, [authorityB]: b.url }
    walkOptions = {
      // The test's explicit authority → loopback mapping; production resolves https://<authority>.
      registryUrlOf: (authority) => urls[authority] ?? `https://${authority}`,
      evidence: { now: a.r.clock.now() },
    }
    widePredecessors = []
    for (let i = 0; i < fanoutCount; i++) widePredecessors.push(await publishOn(b.r))
    wideRoot = await publishOn(a.r, widePredecessors)
  })

  afterAll(async () => {
    await a?.r.close()
    await b?.r.close()
    console.log(
      `[fed-010 walk] ${ran.size}/4 fed-010 cases driven against two live registries (${fixtures.length} fixture)`,
    )
  })

  it('surfaces a fanout overrun as a partial result: the verified nodes, the control, the frontier', async () => {
    expect(config.on_overrun).toBe('surface-partial-result')
    const result = await walkDerivedFrom(wideRoot, {
      ...walkOptions,
      controls: controlsOf(config),
      onOverrun: config.on_overrun,
    })
    const constraints = fx.expected.result_constraints as Json
    expect(constraints.MUST_signal_truncation).toBe(true)
    expect(result.complete).toBe(false)
    if (result.complete) return
    expect(result.truncatedBy).toBe(constraints.example_result_shape.truncated_by)
    const predecessors = result.nodes.filter((node) => node.depth === 1)
    expect(predecessors).toHaveLength(constraints.example_result_shape.nodes_verified)
    expect(predecessors.map((node) => node.ctxId)).toEqual(widePredecessors.slice(0, config.max_fanout_per_context))
    expect(result.unwalkedFrontier).toEqual(widePredecessors.slice(config.max_fanout_per_context))
    expect(result.unwalkedFrontier).toHaveLength(fanoutCount - config.max_fanout_per_context)
    expect(result.failures).toEqual([])
    // Every node was verified end to end, the registry's receipt included, on the registry of its own authority.
    for (const node of result.nodes) {
      expect(node.verification.ok).toBe(true)
      expect(node.verification.checks.map((check) => check.name)).toContain('registry_receipt')
      expect(node.authority).toBe(node.depth === 0 ? authorityA : authorityB)
    }
    // The same graph walked without the cap is complete, and has the complete shape.
    const full = await walkDerivedFrom(wideRoot, {
      ...walkOptions,
      controls: { ...controlsOf(config), maxFanoutPerContext: fanoutCount },
    })
    expect(full.complete).toBe(true)
    expect(full.nodes).toHaveLength(1 + fanoutCount)
    expect(full).not.toHaveProperty('unwalkedFrontier')
    ran.add('fanout-partial')
  })

  it('aborts a fanout overrun by default, and a walk over max_total_nodes, with cross_registry_resolution_failed', async () => {
    expect(fx.expected.also_conformant).toContain('cross_registry_resolution_failed')
    expect(await abortReason(walkDerivedFrom(wideRoot, { ...walkOptions, controls: controlsOf(config) }))).toBe(
      'max_fanout_per_context',
    )
    // The root and its predecessors are one node more than the root's fanout.
    const tooFew = { ...controlsOf(config), maxFanoutPerContext: fanoutCount, maxTotalNodes: fanoutCount }
    expect(await abortReason(walkDerivedFrom(wideRoot, { ...walkOptions, controls: tooFew }))).toBe('max_total_nodes')
    ran.add('aborts')
  })

  it('truncates a chain deeper than max_depth and reports the unwalked subtree', async () => {
    const chain: string[] = []
    for (let i = 0; i < depthCase.chain_depth; i++) chain.push(await publishOn(b.r, i === 0 ? [] : [chain[i - 1]!]))
    const root = await publishOn(a.r, [chain.at(-1)!])
    const result = await walkDerivedFrom(root, {
      ...walkOptions,
      controls: { ...controlsOf(config), maxDepth: depthCase.configured_limit },
    })
    expect(result.complete).toBe(false)
    if (result.complete) return
    expect(result.truncatedBy).toBe('max_depth')
    expect(result.nodes).toHaveLength(1 + depthCase.configured_limit)
    // The frontier heads the unwalked tail: the chain's oldest (chain_depth - limit) contexts.
    const unwalkedTail = chain.slice(0, depthCase.chain_depth - depthCase.configured_limit)
    expect(result.unwalkedFrontier).toEqual([unwalkedTail.at(-1)])
    expect(result.nodes.map((node) => node.ctxId)).not.toContain(unwalkedTail[0])
    ran.add('depth')
  })

  it('aborts when the end-to-end walk budget expires mid-walk behind a slow registry', async () => {
    const slow = widePredecessors[3]!
    const timers = new VirtualTimers()
    const limitMs = timeoutCase.configured_limit_seconds * 1000
    const fetchSlowly: typeof fetch = async (input, init) => {
      // Registry B takes longer than the whole budget to answer this context.
      if (String(input).includes(encodeURIComponent(slow))) timers.advance(limitMs + 1)
      return fetch(input, init)
    }
    const walk = walkDerivedFrom(wideRoot, {
      ...walkOptions,
      fetch: fetchSlowly,
      timers,
      controls: { ...controlsOf(config), maxFanoutPerContext: fanoutCount, totalWalkTimeoutMs: limitMs },
    })
    expect(await abortReason(walk)).toBe('total_walk_timeout')
    ran.add('timeout')
  })
})
