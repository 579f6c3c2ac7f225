/**
 * The consumer's `derived_from` walker (RFC-ACDP-0006 §4.1 steps 1–7, §5; fixture fed-010): assembles the
 * evidence chain behind a context (§2). The root and every predecessor are fetched from THEIR OWN authority's
 * registry (`acdp://<authority>/…`), checked (the authority's capabilities name it, the body is the one asked
 * for) and verified with verifyContext (schema, content hash, key binding, key resolution, signature; evidence
 * stages when asked). Breadth-first, so depth is the number of `derived_from` hops from the root (root: 0).
 *
 * Traversal controls (§4.1 table), all configurable (walk-controls.ts), one AbortSignal for the whole walk:
 *
 * | control                | overrun                                                                        |
 * | ---------------------- | ------------------------------------------------------------------------------ |
 * | max depth              | partial result: the nodes past the limit are the unwalked frontier             |
 * | max total nodes        | abort: ProtocolError `cross_registry_resolution_failed`                        |
 * | max fanout per context | abort (default, RECOMMENDED); with `onOverrun: 'surface-partial-result'` the   |
 * |                        | first N entries are walked and the rest are the unwalked frontier              |
 * | total walk timeout     | abort (end to end across the walk, not per fetch)                              |
 *
 * A partial result has another shape than a complete one (`complete: false`, `truncatedBy`,
 * `unwalkedFrontier`): a truncated evidence set is never presented as exhaustive (§4.1 "Partial-walk
 * reporting"). A cycle aborts the walk (typed error carrying the cycle). A reference that does not resolve (404,
 * transport, unusable registry) or whose body fails verification (or whose key is revoked for it) is reported
 * in `failures` (§5) and never used as evidence nor walked through. A node whose body verifies but whose registry
 * evidence fails (receipt, log inclusion, cosignatures) is still the producer's content (RFC-ACDP-0010 §8,
 * RFC-ACDP-0012 §9.3): it is a node with `verification.ok` false, and it is walked through.
 */
import { DidResolver, type FetchDidDocument } from '../did/resolver.js'
import { DEFAULT_SDK_TIMEOUT_MS, type SdkRequestOptions } from './registry-http.js'
import type { EvidenceOptions } from './verify-evidence.js'
import type { EnvelopeCheck, KeyResolver } from './verify-context.js'
import { WalkAuthorities } from './walk-authorities.js'
import { resolveWalkControls, walkAborted, type WalkAbortReason, type WalkControls } from './walk-controls.js'
import { WalkEdges } from './walk-cycles.js'
import { didDocumentFetcher, type Pending, resolveNode, type VerifyNode } from './walk-node.js'
import type { WalkedNode, WalkFailure, WalkResult, WalkTruncation } from './walk-result.js'

export type { NodeTarget, VerifyNode } from './walk-node.js'
export type { CompleteWalk, TruncatedWalk, WalkedNode, WalkFailure, WalkResult, WalkTruncation } from './walk-result.js'

/** Timer functions of the walk deadline (injectable: tests drive the 30 s budget without sleeping). */
export interface WalkTimers {
  setTimeout(callback: () => void, ms: number): unknown
  clearTimeout(handle: unknown): void
}

/** Options of {@link walkDerivedFrom}. */
export interface WalkDerivedFromOptions {
  /** The four §4.1 controls; absent members take the RFC defaults (WALK_DEFAULTS). */
  controls?: WalkControls
  /**
   * What a fanout overrun does: `abort` (default; RECOMMENDED by §4.1) or `surface-partial-result` (walk the
   * first `maxFanoutPerContext` entries, report the rest as unwalked). Depth always truncates, node count and
   * timeout always abort, as the §4.1 table says.
   */
  onOverrun?: 'abort' | 'surface-partial-result'
  /** Base URL of an authority's registry. Default `https://<authority>` (§4.1 step 2, §7.2 HTTPS only). */
  registryUrlOf?: (authority: string) => string
  /**
   * The HTTP transport of every read (contexts, capabilities, did:web documents); global `fetch` by default.
   * Pass `fetchThroughOutbound(client)` to put the walk behind the SSRF-safe outbound policy (§7).
   */
  fetch?: typeof globalThis.fetch
  /** Deadline of each single request in milliseconds (§7.4), inside the walk's total budget. Default 10 000. */
  requestTimeoutMs?: number
  /** Aborts the walk (it then throws `cross_registry_resolution_failed`, reason `aborted`). */
  signal?: AbortSignal
  /**
   * Key resolver for producer signatures. Default: a DidResolver created for this walk only (its did:web
   * documents are cached for the walk, never across walks, §4.1 step 7), fetching through `fetch`; a did:web
   * DID of an authority the walk reads is fetched from that authority's `registryUrlOf`.
   */
  resolver?: KeyResolver
  /** Replaces the default resolver's document fetch (ignored when `resolver` is given). */
  fetchDidDocument?: FetchDidDocument
  /** Also verify each node's registry evidence (receipt, log inclusion, cosignatures); see verifyContext. */
  evidence?: EvidenceOptions
  /**
   * Verifies each fetched node instead of the walk's verifyContext call (`evidence` and `envelopeChecks` are then
   * the hook's business), given the node's own registry URL, the walk's resolver and signal. Throwing (other than
   * for the walk's abort) makes the node unresolvable (`evidence_unavailable`).
   */
  verifyNode?: VerifyNode
  envelopeChecks?: readonly EnvelopeCheck[]
  /** Fetch and check each authority's `/.well-known/acdp.json` once per walk (§4.1 steps 2–3). Default true. */
  checkRegistries?: boolean
  /** Contexts fetched at once within one depth level. Default 8. */
  concurrency?: number
  timers?: WalkTimers
}

/**
 * Walks the `derived_from` graph below `rootCtxId`.
 *
 * @throws ProtocolError `cross_registry_resolution_failed` (`details.reason`: `max_total_nodes`,
 *   `max_fanout_per_context`, `total_walk_timeout`, `cycle`, `aborted`) when the walk is aborted as a whole.
 * @throws TypeError for bad options (a control that is not a positive integer).
 */
export async function walkDerivedFrom(rootCtxId: string, options: WalkDerivedFromOptions = {}): Promise<WalkResult> {
  const controls = resolveWalkControls(options.controls)
  const concurrency = options.concurrency ?? 8
  if (!Number.isSafeInteger(concurrency) || concurrency < 1) throw new TypeError('concurrency must be >= 1')
  const timers = options.timers ?? { setTimeout, clearTimeout }
  const deadline = new AbortController()
  const timer = timers.setTimeout(() => deadline.abort(), controls.totalWalkTimeoutMs)
  const signal = options.signal === undefined ? deadline.signal : AbortSignal.any([options.signal, deadline.signal])
  const abortReason = (): WalkAbortReason | undefined =>
    deadline.signal.aborted ? 'total_walk_timeout' : options.signal?.aborted ? 'aborted' : undefined
  const throwIfAborted = () => {
    const reason = abortReason()
    if (reason === undefined) return
    throw reason === 'total_walk_timeout'
      ? walkAborted(reason, `the derived_from walk exceeded its ${controls.totalWalkTimeoutMs} ms budget`, {
          limit: controls.totalWalkTimeoutMs,
        })
      : walkAborted(reason, 'the derived_from walk was aborted by the caller')
  }

  const registryUrlOf = options.registryUrlOf ?? ((authority: string) => `https://${authority}`)
  const request: SdkRequestOptions = {
    ...(options.fetch ? { fetch: options.fetch } : {}),
    timeoutMs: options.requestTimeoutMs ?? DEFAULT_SDK_TIMEOUT_MS,
    signal,
  }
  const authorities = new WalkAuthorities(registryUrlOf, request)
  const resolver =
    options.resolver ??
    new DidResolver({
      fetchDidDocument: options.fetchDidDocument ?? didDocumentFetcher(registryUrlOf, request),
      failureCacheMs: 0,
    })
  const resolve = (pending: Pending) =>
    resolveNode(pending, {
      request,
      registryUrlOf,
      authorities,
      resolver,
      checkRegistries: options.checkRegistries !== false,
      evidence: options.evidence,
      envelopeChecks: options.envelopeChecks,
      verifyNode: options.verifyNode,
      signal,
      throwIfAborted,
    })

  try {
    const visited = new Map<string, Pending>()
    const edges = new WalkEdges()
    const nodes: WalkedNode[] = []
    const failures: WalkFailure[] = []
    const truncations: WalkTruncation[] = []
    const root: Pending = { ctxId: rootCtxId, depth: 0, referencedBy: null }
    visited.set(rootCtxId, root)
    let level = [root]
    while (level.length > 0) {
      const resolved = await untilAborted(mapLimited(level, concurrency, resolve), signal)
      throwIfAborted()
      if (resolved === undefined) throw walkAborted('aborted', 'the derived_from walk was aborted')
      const next: Pending[] = []
      for (const [index, outcome] of resolved.entries()) {
        const pending = level[index]!
        if ('failure' in outcome) {
          failures.push(outcome.failure)
          continue
        }
        nodes.push(outcome.node)
        let refs = derivedFromOf(outcome.node)
        if (refs.length === 0) continue
        if (pending.depth >= controls.maxDepth) {
          truncations.push({ control: 'max_depth', ctxId: pending.ctxId, depth: pending.depth, unwalked: refs })
          continue
        }
        if (refs.length > controls.maxFanoutPerContext) {
          if (options.onOverrun !== 'surface-partial-result') {
            throw walkAborted(
              'max_fanout_per_context',
              `${pending.ctxId} cites ${refs.length} predecessors, more than max_fanout_per_context ${controls.maxFanoutPerContext}`,
              { ctx_id: pending.ctxId, fanout: refs.length, limit: controls.maxFanoutPerContext },
            )
          }
          truncations.push({
            control: 'max_fanout_per_context',
            ctxId: pending.ctxId,
            depth: pending.depth,
            unwalked: refs.slice(controls.maxFanoutPerContext),
          })
          refs = refs.slice(0, controls.maxFanoutPerContext)
        }
        for (const ref of refs) {
          edges.add(pending.ctxId, ref)
          const cycle = cycleThroughAncestors(visited, pending, ref)
          if (cycle !== undefined) throw cycleError(cycle)
          if (visited.has(ref)) continue
          if (visited.size >= controls.maxTotalNodes) {
            throw walkAborted(
              'max_total_nodes',
              `the derived_from walk needs more than max_total_nodes ${controls.maxTotalNodes} contexts`,
              { limit: controls.maxTotalNodes },
            )
          }
          const child: Pending = { ctxId: ref, depth: pending.depth + 1, referencedBy: pending.ctxId }
          visited.set(ref, child)
          next.push(child)
        }
      }
      level = next
    }
    const cycle = edges.findCycle()
    if (cycle !== undefined) throw cycleError(cycle)
    // A cut reference the walk reached through another context was walked after all: not a truncation.
    const cuts = truncations
      .map((cut) => ({ ...cut, unwalked: cut.unwalked.filter((id) => !visited.has(id)) }))
      .filter((cut) => cut.unwalked.length > 0)
    if (cuts.length === 0) return { complete: true, nodes, failures }
    const frontier = [...new Set(cuts.flatMap((cut) => cut.unwalked))]
    return {
      complete: false,
      truncatedBy: cuts[0]!.control,
      truncations: cuts,
      nodes,
      failures,
      unwalkedFrontier: frontier,
    }
  } finally {
    timers.clearTimeout(timer)
  }
}

function derivedFromOf(node: WalkedNode): string[] {
  const refs = node.envelope.body['derived_from']
  // Schema-checked by verifyContext: an array of unique ctx_id strings.
  return Array.isArray(refs) ? (refs as string[]) : []
}

/** The cycle `ref` closes along the discovery path of `from` (as ctx_ids, `ref` first and last), or undefined. */
function cycleThroughAncestors(visited: Map<string, Pending>, from: Pending, ref: string): string[] | undefined {
  const path: string[] = []
  let current: Pending | undefined = from
  while (current !== undefined) {
    path.push(current.ctxId)
    if (current.ctxId === ref) return [...path.reverse(), ref]
    current = current.referencedBy === null ? undefined : visited.get(current.referencedBy)
  }
  return undefined
}

function cycleError(cycle: string[]) {
  return walkAborted('cycle', `derived_from cycle (tampered body or forging registry): ${cycle.join(' -> ')}`, {
    cycle,
  })
}

/** Runs `fn` over `items` with at most `limit` in flight; results in input order. */
async function mapLimited<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length)
  let next = 0
  const worker = async () => {
    while (next < items.length) {
      const index = next++
      results[index] = await fn(items[index]!)
    }
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker))
  return results
}

/** Settles with `promise`, or as soon as `signal` aborts (a resolver that ignores the signal cannot hold the walk). */
function untilAborted<T>(promise: Promise<T>, signal: AbortSignal): Promise<T | undefined> {
  if (signal.aborted) return Promise.resolve(undefined)
  return new Promise<T | undefined>((resolve, reject) => {
    const onAbort = () => resolve(undefined)
    signal.addEventListener('abort', onAbort, { once: true })
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort)
        resolve(value)
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort)
        reject(error)
      },
    )
  })
}
