import { randomUUID } from 'node:crypto'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { isProtocolError, type ProtocolError } from '../errors.js'
import { createProducerKey } from './create-producer-key.js'
import { completeProducerContent } from './producer.js'
import { buildPublishRequest } from './publish-request.js'
import { WALK_DEFAULTS } from './walk-controls.js'
import { verifyContext } from './verify-context.js'
import { type NodeTarget, type WalkDerivedFromOptions, type WalkResult, walkDerivedFrom } from './walk-derived-from.js'

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- tests read and tamper with untyped JSON documents
type Json = Record<string, any>

const A = 'registry-a.example'
const B = 'registry-b.example'
const producer = createProducerKey()

function capabilities(authority: string): Json {
  return {
    acdp_version: '0.5.0',
    registry_did: `did:web:${authority}`,
    supported_signature_algorithms: ['ed25519'],
    supported_did_methods: ['did:web', 'did:key'],
    profiles: ['acdp-registry-core'],
    limits: { max_payload_bytes: 1_048_576, max_embedded_bytes: 65_536 },
  }
}

/**
 * A fake network of registries answering `https://<authority>/…`: signed did:key contexts, capabilities, and
 * knobs for the failure modes (missing, tampered, hanging, wrong registry DID).
 */
class FakeNetwork {
  readonly envelopes = new Map<string, Json>()
  readonly requests: string[] = []
  readonly hanging = new Set<string>()
  readonly registryDids = new Map<string, string>()

  /** Publishes a context on `authority` citing `derivedFrom`; returns its ctx_id. */
  add(authority: string, derivedFrom: string[] = [], title = 'node'): string {
    const ctxId = `acdp://${authority}/${randomUUID()}`
    const content = completeProducerContent({ title, type: 'analysis', derived_from: derivedFrom }, producer)
    const request = buildPublishRequest({
      body: content,
      algorithm: producer.algorithm,
      privateKey: producer.privateKey,
      keyId: producer.keyId,
    })
    const body = {
      ...request,
      ctx_id: ctxId,
      lineage_id: `lin:sha256:${'1'.repeat(64)}`,
      origin_registry: authority,
      created_at: '2026-06-12T09:00:00.000Z',
    }
    this.envelopes.set(ctxId, { body, registry_state: { status: 'active' } })
    return ctxId
  }

  /** A linear chain of `length` contexts on `authority`, oldest first; returns them oldest first. */
  chain(authority: string, length: number): string[] {
    const ids: string[] = []
    for (let i = 0; i < length; i++) ids.push(this.add(authority, i === 0 ? [] : [ids[i - 1]!], `chain ${i}`))
    return ids
  }

  readonly fetch: typeof globalThis.fetch = async (input, init) => {
    const url = new URL(String(input))
    this.requests.push(url.href)
    if (url.pathname === '/.well-known/acdp.json') {
      const caps = capabilities(url.host)
      caps['registry_did'] = this.registryDids.get(url.host) ?? caps['registry_did']
      return Response.json(caps)
    }
    const ctxId = decodeURIComponent(url.pathname.replace(/^\/contexts\//, ''))
    if (this.hanging.has(ctxId)) {
      return new Promise<Response>((_resolve, reject) => {
        init?.signal?.addEventListener('abort', () => reject(init.signal?.reason), { once: true })
      })
    }
    const envelope = this.envelopes.get(ctxId)
    if (envelope === undefined || new URL(ctxId).host !== url.host) {
      return Response.json({ error: { code: 'not_found', message: 'no such context' } }, { status: 404 })
    }
    return Response.json(envelope)
  }

  walk(root: string, options: WalkDerivedFromOptions = {}): Promise<WalkResult> {
    return walkDerivedFrom(root, { fetch: this.fetch, ...options })
  }
}

async function walkError(promise: Promise<unknown>): Promise<ProtocolError> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  )
  if (!isProtocolError(error)) throw new Error(`expected a ProtocolError, got ${String(error)}`)
  return error
}

const ids = (result: WalkResult) => result.nodes.map((node) => node.ctxId)

afterEach(() => {
  vi.useRealTimers()
})

describe('walkDerivedFrom', () => {
  it('walks a complete graph breadth first, each reference on its own authority, with the RFC defaults', async () => {
    expect(WALK_DEFAULTS).toEqual({
      maxDepth: 10,
      maxTotalNodes: 500,
      maxFanoutPerContext: 100,
      totalWalkTimeoutMs: 30_000,
    })
    const net = new FakeNetwork()
    const shared = net.add(B)
    const left = net.add(B, [shared])
    const right = net.add(A, [shared])
    const root = net.add(A, [left, right])
    const result = await net.walk(root)
    expect(result).toMatchObject({ complete: true, failures: [] })
    expect(result).not.toHaveProperty('truncatedBy')
    expect(result).not.toHaveProperty('unwalkedFrontier')
    expect(ids(result)).toEqual([root, left, right, shared])
    expect(result.nodes.map((node) => [node.depth, node.referencedBy, node.authority])).toEqual([
      [0, null, A],
      [1, root, B],
      [1, root, A],
      [2, left, B],
    ])
    expect(result.nodes.every((node) => node.verification.ok)).toBe(true)
    // A diamond is not a cycle, the shared predecessor is fetched once, capabilities once per authority.
    const contexts = net.requests.filter((url) => url.includes('/contexts/'))
    expect(contexts).toHaveLength(4)
    expect(
      contexts.every((url) =>
        url.startsWith(`https://${new URL(decodeURIComponent(url.split('/contexts/')[1]!)).host}/`),
      ),
    ).toBe(true)
    expect(net.requests.filter((url) => url.endsWith('/.well-known/acdp.json')).sort()).toEqual([
      `https://${A}/.well-known/acdp.json`,
      `https://${B}/.well-known/acdp.json`,
    ])
  })

  it('maps authorities to base URLs only through registryUrlOf', async () => {
    const net = new FakeNetwork()
    const parent = net.add(B)
    const root = net.add(A, [parent])
    const seen: string[] = []
    const result = await walkDerivedFrom(root, {
      registryUrlOf: (authority) => `https://${authority}:8443/base`,
      fetch: async (input, init) => {
        seen.push(String(input))
        return net.fetch(String(input).replace(':8443/base', ''), init)
      },
    })
    expect(result.complete).toBe(true)
    expect(seen).toContain(`https://${B}:8443/base/contexts/${encodeURIComponent(parent)}`)
  })

  it('truncates at max_depth with a partial result naming the unwalked subtree root', async () => {
    const net = new FakeNetwork()
    const chain = net.chain(B, 12)
    const root = net.add(A, [chain[11]!])
    const result = await net.walk(root, { controls: { maxDepth: 10 } })
    expect(result.complete).toBe(false)
    if (result.complete) return
    expect(result.truncatedBy).toBe('max_depth')
    expect(result.nodes).toHaveLength(11)
    expect(Math.max(...result.nodes.map((node) => node.depth))).toBe(10)
    // Depth 10 is chain[2]; its predecessor chain[1] heads the unwalked subtree (chain[1], chain[0]).
    expect(result.unwalkedFrontier).toEqual([chain[1]])
    expect(result.truncations).toEqual([{ control: 'max_depth', ctxId: chain[2], depth: 10, unwalked: [chain[1]] }])
    expect(net.requests.some((url) => url.includes(encodeURIComponent(chain[1]!)))).toBe(false)
  })

  it('completes when the graph is exactly as deep as max_depth', async () => {
    const net = new FakeNetwork()
    const chain = net.chain(B, 3)
    const root = net.add(A, [chain[2]!])
    expect(await net.walk(root, { controls: { maxDepth: 3 } })).toMatchObject({ complete: true })
    expect(await net.walk(root, { controls: { maxDepth: 2 } })).toMatchObject({
      complete: false,
      truncatedBy: 'max_depth',
    })
  })

  it('aborts a fanout overrun by default, and surfaces a partial result when the caller opts in', async () => {
    const net = new FakeNetwork()
    const parents = Array.from({ length: 12 }, () => net.add(B))
    const root = net.add(A, parents)
    const error = await walkError(net.walk(root, { controls: { maxFanoutPerContext: 8 } }))
    expect(error.code).toBe('cross_registry_resolution_failed')
    expect(error.details).toMatchObject({ reason: 'max_fanout_per_context', fanout: 12, limit: 8, ctx_id: root })

    const partial = await net.walk(root, {
      controls: { maxFanoutPerContext: 8 },
      onOverrun: 'surface-partial-result',
    })
    expect(partial).toMatchObject({ complete: false, truncatedBy: 'max_fanout_per_context' })
    if (partial.complete) return
    expect(ids(partial)).toEqual([root, ...parents.slice(0, 8)])
    expect(partial.unwalkedFrontier).toEqual(parents.slice(8))

    // At the cap exactly, nothing is cut.
    expect(await net.walk(root, { controls: { maxFanoutPerContext: 12 } })).toMatchObject({ complete: true })
  })

  it('does not report a fanout cut whose references were walked through another context', async () => {
    const net = new FakeNetwork()
    const [p1, p2, p3] = [net.add(B), net.add(B), net.add(B)]
    const via = net.add(B, [p3!])
    const root = net.add(A, [via, p1!, p2!, p3!])
    const result = await net.walk(root, {
      controls: { maxFanoutPerContext: 3 },
      onOverrun: 'surface-partial-result',
    })
    expect(result.complete).toBe(true)
    expect(ids(result).sort()).toEqual([root, via, p1, p2, p3].sort())
  })

  it('aborts when the walk needs more than max_total_nodes contexts (root included)', async () => {
    const net = new FakeNetwork()
    const parents = Array.from({ length: 4 }, () => net.add(B))
    const root = net.add(A, parents)
    expect(await net.walk(root, { controls: { maxTotalNodes: 5 } })).toMatchObject({ complete: true })
    const error = await walkError(net.walk(root, { controls: { maxTotalNodes: 4 } }))
    expect(error).toMatchObject({
      code: 'cross_registry_resolution_failed',
      details: { reason: 'max_total_nodes', limit: 4 },
    })
  })

  it('aborts with total_walk_timeout when the budget runs out across the whole walk, not per fetch', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    const net = new FakeNetwork()
    const slow = net.add(B)
    const fast = net.add(B)
    const root = net.add(A, [fast, slow])
    net.hanging.add(slow)
    const walking = walkError(net.walk(root, { controls: { totalWalkTimeoutMs: 30_000 }, requestTimeoutMs: 60_000 }))
    await vi.advanceTimersByTimeAsync(29_999)
    let settled = false
    void walking.then(() => (settled = true))
    await Promise.resolve()
    expect(settled).toBe(false)
    await vi.advanceTimersByTimeAsync(1)
    const error = await walking
    expect(error).toMatchObject({
      code: 'cross_registry_resolution_failed',
      details: { reason: 'total_walk_timeout', limit: 30_000 },
    })
  })

  it('aborts promptly on the deadline even when a custom resolver ignores the signal', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    const net = new FakeNetwork()
    const root = net.add(A)
    const walking = walkError(
      net.walk(root, {
        controls: { totalWalkTimeoutMs: 1000 },
        resolver: { resolveKey: () => new Promise(() => {}) },
      }),
    )
    await vi.advanceTimersByTimeAsync(1000)
    expect(await walking).toMatchObject({ details: { reason: 'total_walk_timeout' } })
  })

  it('aborts with reason aborted when the caller aborts', async () => {
    const net = new FakeNetwork()
    const root = net.add(A)
    net.hanging.add(root)
    const controller = new AbortController()
    const walking = walkError(net.walk(root, { signal: controller.signal }))
    controller.abort()
    expect(await walking).toMatchObject({ code: 'cross_registry_resolution_failed', details: { reason: 'aborted' } })
  })

  it('aborts on a cycle along the discovery path', async () => {
    const net = new FakeNetwork()
    const a = net.add(B)
    const root = net.add(A, [a])
    // A tampered pair: a cites root (re-signed, so only the cycle check can catch it).
    const forged = net.add(B, [root])
    const envelope = net.envelopes.get(forged)!
    envelope.body.ctx_id = a
    net.envelopes.set(a, envelope)
    const error = await walkError(net.walk(root))
    expect(error).toMatchObject({ code: 'cross_registry_resolution_failed', details: { reason: 'cycle' } })
    expect(error.details?.['cycle']).toEqual([root, a, root])
  })

  it('aborts on a cycle closed through a node first reached on another path', async () => {
    const net = new FakeNetwork()
    // root → x, root → y, y → x, x → y (x and y first reached from root: neither is the other's ancestor).
    const x0 = net.add(B)
    const y0 = net.add(B)
    const xForged = net.add(B, [y0])
    const yForged = net.add(B, [x0])
    const relabel = (from: string, to: string) => {
      const envelope = net.envelopes.get(from)!
      envelope.body.ctx_id = to
      net.envelopes.set(to, envelope)
    }
    relabel(xForged, x0)
    relabel(yForged, y0)
    const root = net.add(A, [x0, y0])
    const error = await walkError(net.walk(root))
    expect(error).toMatchObject({ details: { reason: 'cycle' } })
    expect(error.details?.['cycle']).toHaveLength(3)
  })

  it('reports a 404 predecessor as unresolvable and keeps walking the rest', async () => {
    const net = new FakeNetwork()
    const missing = `acdp://${B}/${randomUUID()}`
    const present = net.add(B)
    const root = net.add(A, [missing, present])
    const result = await net.walk(root)
    expect(result.complete).toBe(true)
    expect(ids(result)).toEqual([root, present])
    expect(result.failures).toEqual([
      expect.objectContaining({
        ctxId: missing,
        depth: 1,
        referencedBy: root,
        outcome: 'unresolvable',
        reason: 'not_found',
      }),
    ])
  })

  it.each([
    ['a changed title (hash mismatch)', (e: Json) => (e.body.title = 'tampered'), 'producer_content_hash'],
    ['a bad signature', (e: Json) => (e.body.signature.value = `${'A'.repeat(85)}w`), 'signature'],
    ['another context served', (e: Json) => (e.body.ctx_id = `acdp://${B}/${randomUUID()}`), 'ctx_id_mismatch'],
  ])('reports %s as untrustworthy and never walks through it', async (_case, tamper, reason) => {
    const net = new FakeNetwork()
    const hidden = net.add(B)
    const bad = net.add(B, [hidden])
    tamper(net.envelopes.get(bad)!)
    const root = net.add(A, [bad])
    const result = await net.walk(root)
    expect(result.complete).toBe(true)
    expect(ids(result)).toEqual([root])
    expect(result.failures).toEqual([expect.objectContaining({ ctxId: bad, outcome: 'untrustworthy', reason })])
    expect(net.requests.some((url) => url.includes(encodeURIComponent(hidden)))).toBe(false)
  })

  it('treats every reference to a registry whose capabilities name another DID as unresolvable', async () => {
    const net = new FakeNetwork()
    net.registryDids.set(B, 'did:web:impostor.example')
    const [p1, p2] = [net.add(B), net.add(B)]
    const root = net.add(A, [p1!, p2!])
    const result = await net.walk(root)
    expect(ids(result)).toEqual([root])
    expect(result.failures.map((failure) => [failure.ctxId, failure.reason])).toEqual([
      [p1, 'registry_did_mismatch'],
      [p2, 'registry_did_mismatch'],
    ])
    expect(net.requests.filter((url) => url === `https://${B}/.well-known/acdp.json`)).toHaveLength(1)
    expect(net.requests.some((url) => url.includes('/contexts/') && url.includes(B))).toBe(false)
  })

  it.each([
    ['its did:web on another port', (host: string) => `did:web:${host}%3A8443`],
    ['a did:key', () => 'did:key:z6MkhaXgBZDvotDkL5257faiztiGiC2QtKLGpbnnEGta2doK'],
    ['its did:web under a path', (host: string) => `did:web:${host}:tenant`],
  ])('treats a registry whose capabilities name %s as unresolvable (RFC-ACDP-0006 §4.1 step 3)', async (_n, did) => {
    const net = new FakeNetwork()
    net.registryDids.set(B, did(B))
    const onB = net.add(B)
    const root = net.add(A, [onB])
    const result = await net.walk(root)
    expect(ids(result)).toEqual([root])
    expect(result.failures).toEqual([
      expect.objectContaining({ ctxId: onB, outcome: 'unresolvable', reason: 'registry_did_mismatch' }),
    ])
    expect(net.requests.some((url) => url.includes('/contexts/') && url.includes(B))).toBe(false)
  })

  it('reports a host that is no registry, an unreachable one and a non-capabilities answer as unresolvable', async () => {
    const net = new FakeNetwork()
    const [onC, onD, onE] = ['registry-c.example', 'registry-d.example', 'registry-e.example'].map((host) =>
      net.add(host),
    )
    const root = net.add(A, [onC!, onD!, onE!])
    const fetch: typeof globalThis.fetch = async (input, init) => {
      const url = new URL(String(input))
      if (url.host === 'registry-c.example') return new Response('not here', { status: 404 })
      if (url.host === 'registry-d.example') throw new TypeError('fetch failed')
      if (url.host === 'registry-e.example' && url.pathname.endsWith('acdp.json')) return Response.json({ a: 1 })
      return net.fetch(input, init)
    }
    const result = await walkDerivedFrom(root, { fetch })
    expect(result.complete).toBe(true)
    expect(result.failures.map((failure) => [failure.ctxId, failure.outcome, failure.reason])).toEqual([
      [onC, 'unresolvable', 'capabilities_unavailable'],
      [onD, 'unresolvable', 'outbound_failed'],
      [onE, 'unresolvable', 'capabilities_invalid'],
    ])
    // checkRegistries: false goes straight to the context (registry-e serves it).
    const unchecked = await walkDerivedFrom(root, { fetch, checkRegistries: false })
    expect(unchecked.nodes.map((node) => node.ctxId)).toEqual([root, onE])
  })

  it('caches capabilities within one walk only', async () => {
    const net = new FakeNetwork()
    const root = net.add(A)
    await net.walk(root)
    await net.walk(root)
    expect(net.requests.filter((url) => url.endsWith('/.well-known/acdp.json'))).toHaveLength(2)
  })

  it('reports an unusable root as a failure instead of an empty complete walk that looks clean', async () => {
    const net = new FakeNetwork()
    const result = await net.walk(`acdp://${A}/${randomUUID()}`)
    expect(result.nodes).toEqual([])
    expect(result.failures).toEqual([
      expect.objectContaining({ depth: 0, outcome: 'unresolvable', reason: 'not_found' }),
    ])
    expect((await net.walk('not-a-ctx-id')).failures[0]).toMatchObject({ reason: 'invalid_ctx_id' })
  })

  it('refuses controls that are not positive integers', async () => {
    await expect(walkDerivedFrom(`acdp://${A}/${randomUUID()}`, { controls: { maxTotalNodes: 0 } })).rejects.toThrow(
      TypeError,
    )
  })
})

describe('walkDerivedFrom with a verifyNode hook', () => {
  // The walk's own verification of every node, plus one failed stage `name` on the node `failed`.
  const failing = (name: string) => async (envelope: Json, target: NodeTarget) => {
    const report = await verifyContext(envelope, { resolver: target.resolver })
    if (target.ctxId !== failed) return report
    return { ...report, ok: false, checks: [...report.checks, { name, ok: false, detail: 'tampered' }] }
  }
  let failed = ''

  it('walks through a node whose body verified but whose registry evidence failed (RFC-ACDP-0010 §8)', async () => {
    const net = new FakeNetwork()
    const behind = net.add(A)
    failed = net.add(B, [behind])
    const root = net.add(A, [failed])
    const targets: Array<[string, string, string]> = []
    const result = await net.walk(root, {
      verifyNode: async (envelope, target) => {
        targets.push([target.ctxId, target.authority, target.registryUrl])
        expect(target.signal.aborted).toBe(false)
        return failing('registry_receipt')(envelope, target)
      },
    })
    expect(result.failures).toEqual([])
    expect(ids(result)).toEqual([root, failed, behind])
    expect(result.nodes.map((node) => node.verification.ok)).toEqual([true, false, true])
    expect(targets).toContainEqual([failed, B, `https://${B}`])
  })

  it.each(['key_revocation', 'historical_key', 'signature'])(
    'treats a failed %s as untrustworthy and never walks through it',
    async (stage) => {
      const net = new FakeNetwork()
      const behind = net.add(A)
      failed = net.add(B, [behind])
      const root = net.add(A, [failed])
      const result = await net.walk(root, { verifyNode: failing(stage) })
      expect(ids(result)).toEqual([root])
      expect(result.failures).toEqual([
        expect.objectContaining({ ctxId: failed, outcome: 'untrustworthy', reason: stage }),
      ])
    },
  )

  it('reports a node whose hook throws as unresolvable (evidence_unavailable)', async () => {
    const net = new FakeNetwork()
    const root = net.add(A)
    const result = await net.walk(root, {
      verifyNode: async () => {
        throw new Error('registry went away')
      },
    })
    expect(result.nodes).toEqual([])
    expect(result.failures).toEqual([
      expect.objectContaining({ ctxId: root, outcome: 'unresolvable', reason: 'evidence_unavailable' }),
    ])
  })
})
