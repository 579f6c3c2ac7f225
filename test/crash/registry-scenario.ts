/**
 * Registry crash scenario (receipts and the transparency log on): did:key producers publish signed contexts back to back (each with a unique title,
 * half with an Idempotency-Key), interleaved with publishes whose signature is broken (a dedicated producer,
 * always refused). Invariants after each restart:
 *   - every publish answered 201/200 is retrievable and its body is the request text byte for byte (with the
 *     registry's members appended after the producer's, as RFC-ACDP-0004 serves it);
 *   - nothing refused is stored, and every stored context of the run was sent and not refused;
 *   - Idempotency-Key records of acknowledged publishes survive (a replay answers 200 with the same ctx_id);
 *   - the trust layer (receipts and the transparency log are on): registry-trust-invariants.ts.
 *   - the transparency log (on, with receipts) holds every acknowledged publish (an inclusion proof exists) and
 *     passes its own self-check (POST /admin/log/verify: leaves, stored nodes and last checkpoint agree).
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import {
  didKeyProducer,
  minimalUnsigned,
  type Producer,
  signRequest,
} from '../../packages/registry/test/support/registry-harness.js'
import type { CrashBackend } from './backends.js'
import type { CrashScenario } from './crash-scenario.js'
import { CheckpointWatch, registryTrustInvariants, type TrustTally } from './registry-trust-invariants.js'
import { BINS } from './service-process.js'

const MEDIA_TYPE = 'application/acdp+json'
/** Test-only secrets of the crash registry: the receipt key seed (32 × 0x22) and the admin bearer. */
export const RECEIPT_SEED_B64 = Buffer.alloc(32, 0x22).toString('base64')
export const ADMIN_TOKEN = 'crash-admin-token-0123456789abcdef'

type Outcome = 'pending' | 'acked' | 'refused' | 'unknown'

interface SentPublish {
  title: string
  bodyText: string
  idempotencyKey: string | undefined
  outcome: Outcome
  ctxId?: string
  verified?: boolean
  receiptJson?: string
  inLog?: boolean
}

export const AUTHORITY = 'crash.registry.test'
const GATEWAY_ANSWERS = new Set([502, 503, 504])

/**
 * `producers`: how many did:key producers share the load (default 4); more keep each one under a per-agent
 * publish budget when the registry runs with one.
 */
export function registryCrashScenario(options: { producers?: number } = {}): CrashScenario & {
  /** The ctx_ids of the publishes answered 201/200 so far. */
  acknowledged(): string[]
} {
  const producers: Producer[] = Array.from({ length: options.producers ?? 4 }, () => didKeyProducer())
  const forger = didKeyProducer()
  const sent = new Map<string, SentPublish>()
  let counter = 0
  const watch = new CheckpointWatch()
  const trust: TrustTally = { inclusionProofs: 0, consistencyProofs: 0, checkpointsChecked: 0 }

  const post = async (baseUrl: string, entry: SentPublish): Promise<void> => {
    sent.set(entry.title, entry)
    try {
      const answer = await fetch(`${baseUrl}/contexts`, {
        method: 'POST',
        headers: {
          'content-type': MEDIA_TYPE,
          ...(entry.idempotencyKey === undefined ? {} : { 'idempotency-key': entry.idempotencyKey }),
        },
        body: entry.bodyText,
      })
      const text = await answer.text()
      if (answer.status === 201 || answer.status === 200) {
        entry.outcome = 'acked'
        const answered = JSON.parse(text) as { ctx_id: string; registry_receipt?: unknown }
        entry.ctxId = answered.ctx_id
        entry.receiptJson =
          answered.registry_receipt === undefined ? undefined : JSON.stringify(answered.registry_receipt)
      } else {
        // 502–504 come from a balancer in front (the instance died or timed out): the publish may be stored.
        entry.outcome = GATEWAY_ANSWERS.has(answer.status) ? 'unknown' : 'refused'
      }
    } catch (error) {
      entry.outcome = 'unknown'
      throw error
    }
  }

  return {
    acknowledged() {
      return [...sent.values()].flatMap((e) => (e.outcome === 'acked' ? [e.ctxId as string] : []))
    },

    spec(backend: CrashBackend, port: number) {
      const storage =
        backend.kind === 'sqlite'
          ? `backend = "sqlite"\nsqlite_path = "${backend.sqlitePath}"`
          : `backend = "postgres"\npostgres_url = "${backend.postgresUrl}"`
      const configPath = join(backend.dir, 'registry.toml')
      writeFileSync(
        configPath,
        `[registry]\nauthority = "${AUTHORITY}"\nport = ${port}\nbind = "127.0.0.1"\nlog_level = "warn"\n` +
          `profiles = ["acdp-registry-core", "acdp-registry-discovery"]\n\n[storage]\n${storage}\n\n` +
          '[limits]\npublish_rate_per_minute = 0\n\n' +
          `[receipt]\nsigning_key_seed_b64 = "${RECEIPT_SEED_B64}"\nhead_receipts = true\n\n` +
          '[log]\nenabled = true\ninstance = "1"\n\n' +
          `[auth]\nadmin_tokens = ["${ADMIN_TOKEN}"]\n`,
      )
      return { bin: BINS.registry, args: ['--config', configPath], env: { NODE_ENV: 'production' }, port }
    },

    async connection(baseUrl, round, index, isStopped) {
      while (!isStopped()) {
        counter++
        const title = `crash r${round} c${index} #${counter}`
        const forged = counter % 10 === 0
        const producer = forged ? forger : (producers[counter % producers.length] as Producer)
        // did:key producers are 0.2.0 producers (RFC-ACDP-0001 §5.4): the body declares it, so consumers verify it.
        const request = signRequest(
          producer,
          minimalUnsigned(producer, { acdp_version: '0.2.0', title, tags: ['crash'] }),
        )
        if (forged) {
          const signature = request.signature as { value: string }
          signature.value = `${signature.value.startsWith('A') ? 'B' : 'A'}${signature.value.slice(1)}`
        }
        const entry: SentPublish = {
          title,
          bodyText: JSON.stringify(request),
          idempotencyKey: counter % 2 === 0 ? `crash-key-${counter}` : undefined,
          outcome: 'pending',
        }
        try {
          await post(baseUrl, entry)
          // One connection also reads checkpoints while the load runs: those served before the kill.
          if (index === 0) await watch.sample(baseUrl)
        } catch {
          return
        }
      }
    },

    invariants: [
      {
        name: 'every acknowledged publish is stored byte for byte',
        async check(baseUrl, { final }) {
          const problems: string[] = []
          for (const entry of sent.values()) {
            if (entry.outcome !== 'acked' || (entry.verified && !final)) continue
            const answer = await fetch(`${baseUrl}/contexts/${encodeURIComponent(entry.ctxId as string)}/body`)
            const text = await answer.text()
            if (answer.status !== 200) problems.push(`${entry.ctxId}: GET body answered ${answer.status}`)
            // The stored body is the request text, byte for byte, with the registry's members appended.
            else if (!text.startsWith(`${entry.bodyText.slice(0, -1)},"ctx_id":${JSON.stringify(entry.ctxId)},`)) {
              problems.push(`${entry.ctxId}: stored body differs from the request text`)
            } else entry.verified = true
          }
          return problems
        },
      },
      {
        name: 'nothing refused is stored; everything stored was sent',
        async check(baseUrl) {
          const problems: string[] = []
          const forged = await searchAll(baseUrl, forger.did)
          if (forged.length > 0) problems.push(`${forged.length} contexts of refused (forged) publishes are stored`)
          for (const producer of producers) {
            for (const match of await searchAll(baseUrl, producer.did)) {
              const entry = sent.get(match.title)
              if (entry === undefined) problems.push(`stored context ${match.ctx_id} was never sent`)
              else if (entry.outcome === 'refused') problems.push(`refused publish "${entry.title}" is stored`)
              else if (entry.outcome === 'acked' && entry.ctxId !== match.ctx_id) {
                problems.push(`"${entry.title}" stored as ${match.ctx_id}, acknowledged as ${entry.ctxId}`)
              }
            }
          }
          return problems
        },
      },
      {
        name: 'idempotency records of acknowledged publishes survive',
        async check(baseUrl) {
          const problems: string[] = []
          const keyed = [...sent.values()].filter((e) => e.outcome === 'acked' && e.idempotencyKey !== undefined)
          // The most recent ones: those written just before the kill are the ones at risk.
          for (const entry of keyed.slice(-25)) {
            const answer = await fetch(`${baseUrl}/contexts`, {
              method: 'POST',
              headers: { 'content-type': MEDIA_TYPE, 'idempotency-key': entry.idempotencyKey as string },
              body: entry.bodyText,
            })
            const body = (await answer.json()) as { ctx_id?: string }
            if (answer.status !== 200 || body.ctx_id !== entry.ctxId) {
              problems.push(`replay of "${entry.title}" answered ${answer.status} ${body.ctx_id ?? ''}`)
            }
          }
          return problems
        },
      },
      ...registryTrustInvariants({
        ledger: {
          *acknowledged() {
            for (const entry of sent.values()) {
              if (entry.outcome === 'acked') yield entry as SentPublish & { ctxId: string; receiptJson: string }
            }
          },
        },
        watch,
        authority: AUTHORITY,
        tally: trust,
      }),
      {
        name: 'the transparency log holds every acknowledged publish and passes its self-check',
        async check(baseUrl, { final }) {
          const problems: string[] = []
          const acked = [...sent.values()].filter((e) => e.outcome === 'acked')
          // Every one at the end; between kills the most recent ones (written just before the kill).
          for (const entry of final ? acked : acked.slice(-25)) {
            const proof = await fetch(`${baseUrl}/log/proof?ctx_id=${encodeURIComponent(entry.ctxId as string)}`)
            if (proof.status !== 200) problems.push(`${entry.ctxId}: inclusion proof answered ${proof.status}`)
            await proof.arrayBuffer()
          }
          const verify = await fetch(`${baseUrl}/admin/log/verify`, {
            method: 'POST',
            headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
          })
          const result = (await verify.json()) as { status?: string; reason?: string }
          if (verify.status !== 200 || result.status !== 'ok') {
            problems.push(`log self-check answered ${verify.status} ${result.status ?? ''} ${result.reason ?? ''}`)
          }
          return problems
        },
      },
    ],

    tally() {
      const counts: Record<string, number> = { sent: sent.size, acked: 0, refused: 0, unknown: 0, pending: 0 }
      for (const entry of sent.values()) counts[entry.outcome] = (counts[entry.outcome] ?? 0) + 1
      return { ...counts, ...trust }
    },
  }
}

/** Every current context of `agentId`, through the search API's cursor pages. */
async function searchAll(baseUrl: string, agentId: string): Promise<Array<{ ctx_id: string; title: string }>> {
  const out: Array<{ ctx_id: string; title: string }> = []
  let cursor: string | undefined
  do {
    const query = new URLSearchParams({ agent_id: agentId, limit: '100' })
    if (cursor !== undefined) query.set('cursor', cursor)
    const answer = await fetch(`${baseUrl}/contexts/search?${query}`)
    if (answer.status !== 200) throw new Error(`search answered ${answer.status}: ${await answer.text()}`)
    const page = (await answer.json()) as { matches: Array<{ ctx_id: string; title: string }>; next_cursor?: string }
    out.push(...page.matches)
    cursor = page.next_cursor
  } while (cursor !== undefined)
  return out
}
