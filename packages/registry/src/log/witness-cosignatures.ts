/**
 * Witness cosignature aggregation (RFC-ACDP-0015 §6.1): polls each configured witness's cosignature endpoint
 * (`GET <url>?log_id=<log id>`, the §6.2 `/log/witness` shape) through the SSRF-safe outbound client, verifies
 * every cosignature (§8: closed parse, `witness_id` = the configured witness, `key_id` under it, the exact
 * `(log_id, tree_size, root_hash)` of this registry's own tree at that size, the witness signature via DID
 * resolution, `witnessed_at` at most 120 s ahead), and keeps the valid ones in memory for `/log/checkpoint`.
 * A failing cosignature is dropped and counted, never served; an unreachable witness only costs its poll.
 */
import {
  isProtocolError,
  type LogCosignature,
  type OutboundClient,
  parseJsonStrict,
  verifyCosignature,
} from '@acdp/protocol'
import type { KeyResolver } from '../core/deps.js'
import type { RegistryMetrics } from '../core/metrics.js'

/** Largest witness answer read (a page of cosignatures, not a history dump). */
const MAX_WITNESS_BODY_BYTES = 256 * 1024
/** Cosignatures examined per poll; a witness answering more gets its newest ones looked at (most-recent first). */
const MAX_COSIGNATURES_PER_POLL = 64
/** Distinct tree sizes kept per witness (the newest); older ones are no longer served by `/log/checkpoint`. */
const MAX_TUPLES_PER_WITNESS = 256

export interface ConfiguredWitness {
  did: string
  url: string
  poll_seconds: number
}

export interface WitnessLog {
  warn(object: object, message: string): void
}

export interface WitnessAggregatorOptions {
  logId: string
  witnesses: readonly ConfiguredWitness[]
  outbound: OutboundClient
  resolver: KeyResolver
  clock: () => Date
  /** This registry's root (`sha256:…`) at `treeSize`, or undefined when the tree is not that large yet. */
  rootAt(treeSize: number): Promise<string | undefined>
  metrics?: RegistryMetrics
  log?: WitnessLog
}

export class WitnessAggregator {
  readonly #options: WitnessAggregatorOptions
  /** witness DID → `${tree_size} ${root_hash}` → newest verified cosignature over that tuple. */
  readonly #verified = new Map<string, Map<string, LogCosignature>>()
  readonly #timers: NodeJS.Timeout[] = []

  constructor(options: WitnessAggregatorOptions) {
    this.#options = options
  }

  /** Polls every witness now and then every `poll_seconds` (timers do not keep the process alive). */
  start(): void {
    for (const witness of this.#options.witnesses) {
      void this.poll(witness)
      const timer = setInterval(() => void this.poll(witness), witness.poll_seconds * 1000)
      timer.unref()
      this.#timers.push(timer)
    }
  }

  stop(): void {
    for (const timer of this.#timers.splice(0)) clearInterval(timer)
  }

  /** The verified cosignatures over exactly `(tree_size, root_hash)`, one per witness; empty when none. */
  cosignaturesFor(treeSize: number, rootHash: string): LogCosignature[] {
    const key = `${treeSize} ${rootHash}`
    const out: LogCosignature[] = []
    for (const witness of this.#options.witnesses) {
      const cosignature = this.#verified.get(witness.did)?.get(key)
      if (cosignature) out.push(cosignature)
    }
    return out
  }

  /** One poll of one witness. Never throws: failures are counted and logged. Resolves with how many were kept. */
  async poll(witness: ConfiguredWitness): Promise<number> {
    const { outbound, logId, metrics, log } = this.#options
    let items: unknown[]
    try {
      const url = new URL(witness.url)
      url.searchParams.set('log_id', logId)
      const response = await outbound.request(url, {
        headers: { accept: 'application/acdp+json, application/json' },
        maxBodyBytes: MAX_WITNESS_BODY_BYTES,
      })
      if (response.status !== 200) throw new Error(`witness answered HTTP ${response.status}`)
      const body = parseJsonStrict(new TextDecoder().decode(response.body)) as { witness_signatures?: unknown }
      if (body === null || typeof body !== 'object' || !Array.isArray(body.witness_signatures)) {
        throw new Error('witness answer has no witness_signatures array')
      }
      items = body.witness_signatures.slice(0, MAX_COSIGNATURES_PER_POLL)
    } catch (error) {
      metrics?.recordWitnessCosignature('unreachable')
      log?.warn({ witness: witness.did, err: describe(error) }, 'witness cosignatures could not be fetched')
      return 0
    }
    let kept = 0
    for (const item of items) {
      if (await this.#accept(witness, item)) kept += 1
    }
    return kept
  }

  async #accept(witness: ConfiguredWitness, item: unknown): Promise<boolean> {
    const { logId, resolver, clock, metrics, log } = this.#options
    const claimed = item as { witness_id?: unknown; witnessed_checkpoint?: { tree_size?: unknown } } | null
    const treeSize = claimed?.witnessed_checkpoint?.tree_size
    try {
      const rootHash = typeof treeSize === 'number' ? await this.#options.rootAt(treeSize) : undefined
      const { cosignature } = await verifyCosignature(item, {
        // A size this tree does not have yet can match nothing: the empty root string never equals a hash.
        checkpoint: {
          log_id: logId,
          tree_size: typeof treeSize === 'number' ? treeSize : -1,
          root_hash: rootHash ?? '',
        },
        resolveKey: (keyId) => resolver.resolveKey(keyId),
        isTrustedWitness: (id) => id === witness.did,
        now: clock(),
      })
      this.#store(witness.did, cosignature)
      metrics?.recordWitnessCosignature('aggregated')
      return true
    } catch (error) {
      if (!isProtocolError(error)) throw error
      metrics?.recordWitnessCosignature('rejected')
      log?.warn(
        { witness: witness.did, reason: (error.details as { reason?: string } | undefined)?.reason ?? error.code },
        'witness cosignature rejected (invalid_witness_cosignature); not served',
      )
      return false
    }
  }

  #store(witnessDid: string, cosignature: LogCosignature): void {
    let tuples = this.#verified.get(witnessDid)
    if (!tuples) this.#verified.set(witnessDid, (tuples = new Map()))
    const { tree_size, root_hash } = cosignature.witnessed_checkpoint
    const key = `${tree_size} ${root_hash}`
    const previous = tuples.get(key)
    if (previous && previous.witnessed_at >= cosignature.witnessed_at) return
    tuples.set(key, cosignature)
    if (tuples.size > MAX_TUPLES_PER_WITNESS) {
      let smallest: string | undefined
      let smallestSize = Number.POSITIVE_INFINITY
      for (const [k, c] of tuples) {
        if (c.witnessed_checkpoint.tree_size < smallestSize) {
          smallestSize = c.witnessed_checkpoint.tree_size
          smallest = k
        }
      }
      if (smallest !== undefined) tuples.delete(smallest)
    }
  }
}

function describe(error: unknown): string {
  if (isProtocolError(error)) return `${error.code}: ${error.message}`
  return error instanceof Error ? error.message : String(error)
}
