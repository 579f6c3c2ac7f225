/**
 * The registry's trust-layer durability promises (issue 9 with receipts and the transparency log on), checked
 * after every SIGKILL + restart with @acdp/protocol against the registry's own `/.well-known/did.json`:
 *   - every acknowledged publish still serves the receipt it was acknowledged with, and the retrieval envelope
 *     verifies (producer signature, then the receipt, RFC-ACDP-0010 §8);
 *   - it is in the log: its inclusion proof at the restarted registry's current checkpoint verifies, the leaf
 *     rebuilt from the verified receipt (RFC-ACDP-0012 §9.1);
 *   - the log only grew: from every checkpoint served before the kill, a consistency proof to the new
 *     checkpoint verifies (§9.2), and a checkpoint of the same size has the same root.
 * Each context is proven in the log once (then consistency carries it forward), and again on the final check.
 */
import { DidResolver, type LogCheckpoint, verifyCheckpoint, verifyContext, verifyLogConsistency } from '@acdp/protocol'
import type { CrashInvariant } from './crash-scenario.js'

/** What the registry scenario's ledger knows of one acknowledged publish. */
export interface AcknowledgedPublish {
  ctxId: string
  /** The `registry_receipt` of the 2xx answer, as JSON text of the parsed member (undefined: none came). */
  receiptJson: string | undefined
  /** Proven in the log after some restart (consistency carries it from then on). */
  inLog?: boolean
}

export interface TrustLedger {
  acknowledged(): Iterable<AcknowledgedPublish>
}

/** Checkpoints the load saw (at most one every {@link CHECKPOINT_SAMPLE_MS}), verified after the next restart. */
export class CheckpointWatch {
  #pending: LogCheckpoint[] = []
  readonly #all: LogCheckpoint[] = []
  #lastAt = 0

  /** Called from the load loop: records the served checkpoint now and then. Throws when the process died. */
  async sample(baseUrl: string, now = Date.now()): Promise<void> {
    if (now - this.#lastAt < CHECKPOINT_SAMPLE_MS) return
    this.#lastAt = now
    this.record(await fetchCheckpoint(baseUrl))
  }

  record(checkpoint: LogCheckpoint): void {
    this.#pending.push(checkpoint)
    this.#all.push(checkpoint)
  }

  /** The checkpoints not checked yet (all of them on the final check), handed over once. */
  take(final: boolean): LogCheckpoint[] {
    const out = final ? [...this.#all] : this.#pending
    this.#pending = []
    return out
  }
}

const CHECKPOINT_SAMPLE_MS = 100
const AUTHORITY_OF = (baseUrl: string) => new URL(baseUrl).host

/** What the trust invariants proved, for the run's report (a run that proved nothing must not look green). */
export interface TrustTally {
  inclusionProofs: number
  consistencyProofs: number
  checkpointsChecked: number
}

export function registryTrustInvariants(options: {
  ledger: TrustLedger
  watch: CheckpointWatch
  /** The registry's configured authority (its did:web host), not the loopback address it is reached at. */
  authority: string
  tally: TrustTally
}): CrashInvariant[] {
  const { ledger, watch, authority, tally } = options
  // The registry's DID document is read from the registry under test (did:key producers need no fetch).
  let base = ''
  const resolver = new DidResolver({
    fetchDidDocument: async (url) => {
      const answer = await fetch(`${base}${url.pathname}`)
      return { status: answer.status, body: new Uint8Array(await answer.arrayBuffer()) }
    },
  })
  const context = () => ({ authority, resolveKey: (keyId: string) => resolver.resolveKey(keyId), now: new Date() })

  return [
    {
      name: 'every acknowledged publish keeps its receipt, which verifies against /.well-known/did.json, and is in the log',
      async check(baseUrl, { final }) {
        base = baseUrl
        const problems: string[] = []
        const current = await verifyCheckpoint(await fetchCheckpoint(baseUrl), context())
        const size = current.checkpoint.tree_size
        for (const entry of ledger.acknowledged()) {
          if (entry.inLog && !final) continue
          if (entry.receiptJson === undefined) {
            problems.push(`${entry.ctxId}: acknowledged without a registry_receipt`)
            continue
          }
          const id = encodeURIComponent(entry.ctxId)
          const envelope = await getJson(`${baseUrl}/contexts/${id}`)
          if (envelope.status !== 200) {
            problems.push(`${entry.ctxId}: GET answered ${envelope.status}`)
            continue
          }
          const served = envelope.body['registry_receipt']
          if (JSON.stringify(served) !== entry.receiptJson) {
            problems.push(`${entry.ctxId}: served receipt differs from the acknowledged one`)
            continue
          }
          const proof = await getJson(`${baseUrl}/log/proof?ctx_id=${id}&tree_size=${size}`)
          if (proof.status !== 200) {
            problems.push(`${entry.ctxId}: inclusion proof at ${size} answered ${proof.status}`)
            continue
          }
          // The same tree (size and root): behind a balancer the proof may come from another instance, which signs
          // its own checkpoint of that tree (its own timestamp); verifyContext checks that signature below.
          const proven = proof.body['log_checkpoint'] as LogCheckpoint | undefined
          if (proven?.tree_size !== current.checkpoint.tree_size || proven.root_hash !== current.checkpoint.root_hash) {
            problems.push(`${entry.ctxId}: the proof's checkpoint is not the current one (size ${size})`)
            continue
          }
          const report = await verifyContext(
            { ...envelope.body, log_inclusion: proof.body },
            { resolver, evidence: { now: new Date() } },
          )
          const failed = report.checks.filter((check) => !check.ok)
          const stages = new Set(report.checks.map((check) => check.name))
          if (!report.ok || !stages.has('registry_receipt') || !stages.has('log_inclusion')) {
            problems.push(`${entry.ctxId}: ${failed.map((c) => `${c.name}: ${c.detail}`).join('; ') || 'not checked'}`)
          } else {
            entry.inLog = true
            tally.inclusionProofs += 1
          }
        }
        return problems
      },
    },
    {
      name: 'a consistency proof from every checkpoint served before the kill to the new one verifies',
      async check(baseUrl, { final }) {
        base = baseUrl
        const problems: string[] = []
        const current = (await verifyCheckpoint(await fetchCheckpoint(baseUrl), context())).checkpoint
        const sizes = new Map<number, LogCheckpoint>()
        for (const old of watch.take(final)) sizes.set(old.tree_size, old)
        for (const old of sizes.values()) {
          const label = `checkpoint of size ${old.tree_size}`
          tally.checkpointsChecked += 1
          try {
            await verifyCheckpoint(old, { ...context(), now: new Date(Date.parse(old.timestamp)) })
          } catch (error) {
            problems.push(`${label} served before the kill does not verify: ${String(error)}`)
            continue
          }
          if (old.log_id !== current.log_id) problems.push(`${label}: log_id changed to ${current.log_id}`)
          else if (old.tree_size > current.tree_size) problems.push(`${label}: the log shrank to ${current.tree_size}`)
          else if (old.tree_size === current.tree_size) {
            if (old.root_hash !== current.root_hash) problems.push(`${label}: same size, another root (fork)`)
          } else if (old.tree_size > 0) {
            const proof = await getJson(`${baseUrl}/log/proof?first=${old.tree_size}&second=${current.tree_size}`)
            if (proof.status !== 200) problems.push(`${label}: consistency proof answered ${proof.status}`)
            else {
              try {
                await verifyLogConsistency(proof.body, old, context())
                tally.consistencyProofs += 1
              } catch (error) {
                problems.push(`${label}: consistency proof to ${current.tree_size} fails: ${String(error)}`)
              }
            }
          }
        }
        // A run whose load never grew the log between two checkpoints proved nothing about consistency.
        if (final && tally.consistencyProofs === 0) problems.push('no consistency proof was ever checked')
        // The restarted registry's checkpoint is itself served before the next kill.
        watch.record(current)
        return problems
      },
    },
  ]
}

async function fetchCheckpoint(baseUrl: string): Promise<LogCheckpoint> {
  const { status, body } = await getJson(`${baseUrl}/log/checkpoint`)
  if (status !== 200) throw new Error(`GET /log/checkpoint answered ${status} at ${AUTHORITY_OF(baseUrl)}`)
  // Bare, or the RFC-ACDP-0015 §6.1 envelope when witnesses are configured.
  return (body['log_checkpoint'] ?? body) as LogCheckpoint
}

async function getJson(url: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const answer = await fetch(url)
  return { status: answer.status, body: (await answer.json()) as Record<string, unknown> }
}
