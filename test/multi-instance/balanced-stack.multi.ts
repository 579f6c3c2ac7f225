/**
 * Several instances behind a real balancer (`npm run test:multi-instance`; docs/deploy.md "Several instances
 * behind a balancer"): three registry instances and three control-plane instances, the real built bins, each
 * service on its own PostgreSQL database, behind HAProxy started with deploy/haproxy.cfg as committed (the
 * addresses come from its environment variables). The registries' webhooks go to the control plane's frontend;
 * the registry is enrolled with `acdp registries enroll` (witness on, so the control plane polls and reconciles
 * its log through the registry's frontend).
 *
 * Load flows end to end through the balancer: signed publishes to the registry (its crash scenario: forged ones
 * interleaved, half with an Idempotency-Key), signed ingests to the control plane (its crash scenario: runs,
 * lineage chains), a webhook subscription to a loopback sink, and two SSE clients (one resuming every 300 ms,
 * one staying until its instance dies), each reconnecting through the balancer with Last-Event-ID. During the
 * load one instance of each service is SIGKILLed and restarted, MULTI_INSTANCE_KILLS times (a different one
 * each time). Afterwards, through the balancer:
 *   - the registry scenario's invariants: every acknowledged publish retrievable byte for byte with its
 *     receipt, in the log (inclusion proof), the log dense (self-check) and consistent with every checkpoint
 *     served before each kill; nothing refused stored; idempotency records kept;
 *   - the control plane scenario's invariants: every acknowledged ingest stored, nothing refused stored, run
 *     counters equal stored events, lineage complete;
 *   - every publish the registry acknowledged is in the control plane once (webhook or log reconciliation);
 *   - every stored publication is delivered to the sink under one delivery id (a delivery whose instance died
 *     before recording the sink's answer is sent again under that id: the repeats are counted, not refused);
 *   - both SSE clients saw every stored event once, in id order;
 *   - a per-agent publish budget of N shared over the three registries admits at most N (plus the refill).
 * Skipped with one line without ACDP_TEST_DATABASE_URL or HAProxy (installed first when apt-get can).
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { testDatabaseUrl } from '@acdp/storage'
import { describe, expect, it } from 'vitest'
import { runCli } from '../../packages/cli/src/cli.js'
import { captureIo } from '../../packages/cli/src/test-io.js'
import { didKeyProducer, minimalUnsigned, signRequest } from '../../packages/registry/test/support/registry-harness.js'
import { type CrashBackend, openCrashBackend } from '../crash/backends.js'
import {
  CRASH_AUTH,
  controlPlaneCrashScenario,
  controlPlaneSpec,
  crashCtxId,
  publishBody,
  signedPost,
  WEBHOOK_SECRET,
} from '../crash/control-plane-scenario.js'
import type { CrashInvariant } from '../crash/crash-scenario.js'
import { ADMIN_TOKEN, AUTHORITY, RECEIPT_SEED_B64, registryCrashScenario } from '../crash/registry-scenario.js'
import { BINS, freePort, REPOSITORY_ROOT, ServiceProcess } from '../crash/service-process.js'
import { eventually } from '../support/eventually.js'
import { type Received, readStream, streamFaults } from '../support/sse-reader.js'

const LOAD_SECONDS = Number(process.env.MULTI_INSTANCE_LOAD_SECONDS ?? 30)
const KILLS = Number(process.env.MULTI_INSTANCE_KILLS ?? 2)
const CONNECTIONS = Number(process.env.MULTI_INSTANCE_CONNECTIONS ?? 4)
/** Per-agent publish budget (per minute), shared by the three registries through PostgreSQL. */
const PUBLISH_BUDGET = 300
/** The load's producers: enough that none of them reaches PUBLISH_BUDGET during the run. */
const LOAD_PRODUCERS = 64
const ADMIN_API_KEY = 'multi-instance-admin-key-0123456789abcdef'
const RECONNECT_MS = 300
/** Bounds on waits for the stack to settle after the load (webhook retries, reconciliation, outbox drain). */
const SETTLE_MS = 90_000

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are untyped JSON in tests
type Json = any

/** Why the suite cannot run here, or undefined. HAProxy is installed first when apt-get is at hand. */
function missingPrerequisite(): string | undefined {
  if (testDatabaseUrl() === undefined) return 'ACDP_TEST_DATABASE_URL unset'
  const haproxy = () => spawnSync('haproxy', ['-v'], { stdio: 'ignore' }).status === 0
  if (haproxy()) return undefined
  if (process.getuid?.() === 0 && spawnSync('apt-get', ['--version'], { stdio: 'ignore' }).status === 0) {
    spawnSync('apt-get', ['install', '-y', '--no-install-recommends', 'haproxy'], { stdio: 'ignore' })
  }
  return haproxy() ? undefined : 'haproxy is not installed and could not be installed (apt-get install -y haproxy)'
}

const missing = missingPrerequisite()
if (missing !== undefined) console.warn(`[multi-instance] skipped: ${missing}`)

/** HAProxy with deploy/haproxy.cfg; `timeout` bounds its life should this process die without stopping it. */
function startHaproxy(env: Record<string, string>): ChildProcess {
  const child = spawn('timeout', ['1800', 'haproxy', '-db', '-f', join(REPOSITORY_ROOT, 'deploy', 'haproxy.cfg')], {
    env: { PATH: process.env.PATH ?? '', ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  })
  child.stderr?.resume()
  return child
}

function registryToml(backend: CrashBackend, port: number, controlPlaneFront: string): string {
  return `[registry]
authority = "${AUTHORITY}"
port = ${port}
bind = "127.0.0.1"
log_level = "warn"
profiles = ["acdp-registry-core", "acdp-registry-discovery"]

[storage]
backend = "postgres"
postgres_url = "${backend.postgresUrl}"

[limits]
publish_rate_per_minute = ${PUBLISH_BUDGET}

[rate_limit]
enabled = true
backend = "postgres"
trusted_proxies = ["127.0.0.1"]

[receipt]
signing_key_seed_b64 = "${RECEIPT_SEED_B64}"
head_receipts = true

[log]
enabled = true
instance = "1"

[auth]
admin_tokens = ["${ADMIN_TOKEN}"]

[webhook]
enabled = true
url = "${controlPlaneFront}/ingest/acdp"
secret = "${WEBHOOK_SECRET}"

[outbound]
allow_cidrs = ["127.0.0.1/32"]
allow_http_for_allowlisted = true
`
}

/**
 * A loopback webhook receiver: the delivery ids (X-ACDP-Event-Id) and the number of POSTs per publication. Keyed
 * by ctx_id, not event_id: a publication recovered from the log has no event_id (it came without a webhook).
 */
async function startSink() {
  const deliveries = new Map<string, Set<string>>()
  const posts = new Map<string, number>()
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const delivery = String(request.headers['x-acdp-event-id'] ?? '')
      let eventId = `unparsable:${delivery}`
      try {
        eventId = publicationKey(JSON.parse(Buffer.concat(chunks).toString('utf8')).data as Record<string, unknown>)
      } catch {
        // counted under its delivery id
      }
      deliveries.set(eventId, (deliveries.get(eventId) ?? new Set()).add(delivery))
      posts.set(eventId, (posts.get(eventId) ?? 0) + 1)
      response.writeHead(204).end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/sink`,
    deliveries,
    posts,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}

/** Every stored event of the control plane (all runs, all types), through GET /events' cursor pages. */
async function listAllEvents(
  base: string,
): Promise<Array<{ eventId: string; eventType: string; ctxId: string } & Record<string, unknown>>> {
  const out: Json[] = []
  let cursor: string | null = null
  do {
    const query = new URLSearchParams({ limit: '500' })
    if (cursor !== null) query.set('cursor', cursor)
    const answer = await fetch(`${base}/events?${query}`, { headers: CRASH_AUTH })
    if (answer.status !== 200) throw new Error(`GET /events answered ${answer.status}: ${await answer.text()}`)
    const page = (await answer.json()) as Json
    out.push(...page.data)
    cursor = page.nextCursor
  } while (cursor !== null)
  return out
}

async function runInvariants(invariants: CrashInvariant[], base: string): Promise<string[]> {
  const problems: string[] = []
  for (const invariant of invariants) {
    for (const problem of await invariant.check(base, { final: true })) problems.push(`${invariant.name}: ${problem}`)
  }
  return problems
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe.skipIf(missing !== undefined)('three registries and three control planes behind HAProxy', () => {
  it(
    `keep every promise across ${KILLS} SIGKILL(s) of one instance of each service under load`,
    { timeout: 15 * 60_000 },
    async () => {
      const [registryDb, controlPlaneDb] = (await Promise.all([
        openCrashBackend('postgres', 'multi-registry'),
        openCrashBackend('postgres', 'multi-cp'),
      ])) as [CrashBackend, CrashBackend]
      const [registryFront, controlPlaneFront] = [await freePort(), await freePort()]
      const registryBase = `http://127.0.0.1:${registryFront}`
      const controlPlaneBase = `http://127.0.0.1:${controlPlaneFront}`
      const registries: ServiceProcess[] = []
      const controlPlanes: ServiceProcess[] = []
      for (let i = 0; i < 3; i++) {
        const port = await freePort()
        const configPath = join(registryDb.dir, `registry-${i + 1}.toml`)
        writeFileSync(configPath, registryToml(registryDb, port, controlPlaneBase))
        registries.push(
          new ServiceProcess({ bin: BINS.registry, args: ['--config', configPath], env: { NODE_ENV: 'test' }, port }),
        )
        const spec = controlPlaneSpec(controlPlaneDb, await freePort())
        Object.assign(spec.env, {
          AUTH_ADMIN_API_KEYS: ADMIN_API_KEY,
          TRUST_PROXY: '127.0.0.1',
          LOG_WITNESS_ENABLED: 'true',
          LOG_WITNESS_INTERVAL_SECONDS: '2',
          LOG_RECONCILE_ENABLED: 'true',
          LOG_RECONCILE_INTERVAL_SECONDS: '2',
          STREAM_SSE_HEARTBEAT_MS: '5000',
        })
        controlPlanes.push(new ServiceProcess(spec))
      }
      const sink = await startSink()
      let haproxy: ChildProcess | undefined
      const abort = new AbortController()
      try {
        // The first instance of each service runs the migrations; the others start once it has.
        await Promise.all([registries[0]?.start(), controlPlanes[0]?.start()])
        await Promise.all([...registries.slice(1), ...controlPlanes.slice(1)].map((s) => s.start()))
        const address = (s: ServiceProcess) => `127.0.0.1:${s.spec.port}`
        haproxy = startHaproxy({
          ACDP_LB_REGISTRY_BIND: `127.0.0.1:${registryFront}`,
          ACDP_LB_CONTROL_PLANE_BIND: `127.0.0.1:${controlPlaneFront}`,
          ...Object.fromEntries(registries.map((s, i) => [`ACDP_REGISTRY_${i + 1}`, address(s)])),
          ...Object.fromEntries(controlPlanes.map((s, i) => [`ACDP_CONTROL_PLANE_${i + 1}`, address(s)])),
        })
        // Every server in rotation: six answers in a row through each frontend.
        for (const [base, path] of [
          [registryBase, '/healthz'],
          [controlPlaneBase, '/readyz'],
        ] as const) {
          await eventually(
            `${base} to answer through HAProxy`,
            async () => {
              for (let i = 0; i < 6; i++) {
                const ok = await fetch(`${base}${path}`).then(
                  (r) => r.status === 200,
                  () => false,
                )
                if (!ok) return undefined
              }
              return true
            },
            { timeoutMs: 30_000, intervalMs: 200 },
          )
        }

        // docs/deploy.md "Enroll the registry", against the control plane's frontend.
        const secretFile = join(controlPlaneDb.dir, 'registry-webhook.secret')
        writeFileSync(secretFile, `${WEBHOOK_SECRET}\n`, { mode: 0o600 })
        const io = captureIo({ cwd: controlPlaneDb.dir, env: { ACDP_API_KEY: ADMIN_API_KEY } })
        const enrolled = await runCli(
          [
            'registries',
            'enroll',
            AUTHORITY,
            '--secret-file',
            secretFile,
            '--base-url',
            registryBase,
            '--public-url',
            controlPlaneBase,
            '--control-plane',
            controlPlaneBase,
          ],
          io,
        )
        expect(io.err()).toBe('')
        expect(enrolled).toBe(0)
        const subscribed = await fetch(`${controlPlaneBase}/webhooks`, {
          method: 'POST',
          headers: { ...CRASH_AUTH, 'content-type': 'application/json' },
          body: JSON.stringify({ url: sink.url, events: ['context_published'] }),
        })
        expect(subscribed.status).toBe(201)

        const registryScenario = registryCrashScenario({ producers: LOAD_PRODUCERS })
        const controlPlaneScenario = controlPlaneCrashScenario()
        let stopped = false
        const isStopped = () => stopped
        const load = [
          ...Array.from({ length: CONNECTIONS }, (_, i) => registryScenario.connection(registryBase, 0, i, isStopped)),
          ...Array.from({ length: CONNECTIONS }, (_, i) =>
            controlPlaneScenario.connection(controlPlaneBase, 0, i, isStopped),
          ),
        ]
        // SSE clients, through the balancer: one resumes every RECONNECT_MS (landing on the next instance),
        // one stays connected until its instance dies or the server ends the stream.
        const clients = { resuming: emptyLedger(), staying: emptyLedger() }
        const follow = async (into: Received, paceMs: number | undefined) => {
          let lastId: string | undefined = '0'
          while (!abort.signal.aborted) {
            const before = into.connections
            const signals = [abort.signal, ...(paceMs === undefined ? [] : [AbortSignal.timeout(paceMs)])]
            lastId = await readStream(
              controlPlaneBase,
              lastId,
              into,
              AbortSignal.any(signals),
              CRASH_AUTH,
              publicationKey,
            )
            if (into.connections === before) await pause(50)
          }
        }
        const following = [follow(clients.resuming, RECONNECT_MS), follow(clients.staying, undefined)]

        const loadStartedAt = Date.now()
        const slice = (LOAD_SECONDS * 1000) / (KILLS + 1)
        const restarts: Array<{ service: string; instance: number; restartMs: number }> = []
        for (let kill = 0; kill < KILLS; kill++) {
          await pause(slice)
          const index = (kill + 1) % 3
          const victims = [registries[index], controlPlanes[index]] as ServiceProcess[]
          await Promise.all(victims.map((v) => v.kill()))
          const killedAt = Date.now()
          await Promise.all(
            victims.map(async (victim, v) => {
              await victim.start()
              restarts.push({
                service: v === 0 ? 'registry' : 'control-plane',
                instance: index + 1,
                restartMs: Date.now() - killedAt,
              })
            }),
          )
        }
        await pause(slice)
        stopped = true
        await Promise.all(load)
        const loadSeconds = (Date.now() - loadStartedAt) / 1000

        // A shared budget: 3 × N publishes of one agent through the balancer (round robin over the three).
        const budgetAgent = didKeyProducer()
        const budgetStartedAt = Date.now()
        const budgetAnswers: number[] = []
        await Promise.all(
          Array.from({ length: 6 }, async (_, c) => {
            for (let n = c; n < 3 * PUBLISH_BUDGET; n += 6) {
              const request = signRequest(
                budgetAgent,
                minimalUnsigned(budgetAgent, { acdp_version: '0.2.0', title: `budget #${n}`, tags: ['budget'] }),
              )
              const answer = await fetch(`${registryBase}/contexts`, {
                method: 'POST',
                headers: { 'content-type': 'application/acdp+json' },
                body: JSON.stringify(request),
              })
              await answer.arrayBuffer()
              budgetAnswers.push(answer.status)
            }
          }),
        )
        const budgetSeconds = (Date.now() - budgetStartedAt) / 1000
        const admitted = budgetAnswers.filter((s) => s === 201).length
        const refill = Math.ceil((budgetSeconds * PUBLISH_BUDGET) / 60)

        // A last event through the balancer: both clients must reach it (nothing earlier is on its way then).
        const markerRun = `multi-marker-${randomUUID()}`
        const marker = crashCtxId()
        const markerAnswer = await signedPost(
          `${controlPlaneBase}/ingest/acdp`,
          publishBody({ eventId: randomUUID(), ctxId: marker, runId: markerRun }),
          { 'x-run-id': markerRun },
        )
        expect(markerAnswer.status).toBeLessThan(300)
        await eventually(
          'both SSE clients to receive the marker event',
          async () => (Object.values(clients).every((r) => r.eventIds.includes(marker)) ? true : undefined),
          { timeoutMs: 30_000 },
        )
        abort.abort()
        await Promise.all(following)

        // Every publish the registry acknowledged reaches the control plane (its webhook, or the log
        // reconciliation for those a killed registry's queue lost), once.
        const acknowledged = registryScenario.acknowledged()
        const byCtx = new Map<string, number>()
        let events: Awaited<ReturnType<typeof listAllEvents>> = []
        await eventually(
          'every acknowledged publish in the control plane',
          async () => {
            events = await listAllEvents(controlPlaneBase)
            byCtx.clear()
            for (const e of events) {
              if (e.eventType === 'context_published') byCtx.set(e.ctxId, (byCtx.get(e.ctxId) ?? 0) + 1)
            }
            return acknowledged.every((id) => byCtx.has(id)) ? true : undefined
          },
          { timeoutMs: SETTLE_MS, intervalMs: 1000 },
        ).catch((error: unknown) => console.warn(`[multi-instance] ${String(error)}`))
        const published = events.filter((e) => e.eventType === 'context_published').map((e) => e.ctxId)
        await eventually(
          'the outbox to deliver every stored event',
          async () => (published.every((id) => sink.deliveries.has(id)) ? true : undefined),
          { timeoutMs: SETTLE_MS, intervalMs: 500 },
        ).catch((error: unknown) => console.warn(`[multi-instance] ${String(error)}`))

        const problems = [
          ...(await runInvariants(registryScenario.invariants, registryBase)),
          ...(await runInvariants(
            controlPlaneScenario.invariants.filter((i) => !i.name.startsWith('outbox')),
            controlPlaneBase,
          )),
        ]
        const missingInControlPlane = acknowledged.filter((id) => !byCtx.has(id))
        const twiceInControlPlane = [...byCtx].filter(([, n]) => n > 1)
        const publishedSet = new Set(published)
        const undelivered = published.filter((id) => !sink.deliveries.has(id))
        const strayDeliveries = [...sink.deliveries.keys()].filter((id) => !publishedSet.has(id))
        const manyDeliveryIds = [...sink.deliveries].filter(([, ids]) => ids.size > 1)
        const repeatedPosts = [...sink.posts].filter(([, n]) => n > 1)
        // Frames of events the control plane does not hold (all types: the stream also carries run notices).
        const storedIds = new Set(events.map((e) => publicationKey(e)))
        const sse = Object.fromEntries(
          Object.entries(clients).map(([name, r]) => [
            name,
            {
              connections: r.connections,
              ...streamFaults(publishedOnly(r, publishedSet), published),
              unknown: r.eventIds.filter((id) => !storedIds.has(id)).length,
            },
          ]),
        )
        const registryTally = registryScenario.tally()
        const controlPlaneTally = controlPlaneScenario.tally()
        console.log(
          `[multi-instance] ${loadSeconds.toFixed(1)} s of load, ${KILLS} kill(s); restarts ${JSON.stringify(restarts)}\n` +
            `  registry: ${JSON.stringify(registryTally)} (${((registryTally.acked ?? 0) / loadSeconds).toFixed(0)} acked/s)\n` +
            `  control plane: ${JSON.stringify(controlPlaneTally)} (${((controlPlaneTally.acked ?? 0) / loadSeconds).toFixed(0)} acked/s)\n` +
            `  control plane holds ${published.length} context_published events; acknowledged publishes missing ${missingInControlPlane.length}, stored twice ${twiceInControlPlane.length}\n` +
            `  outbox: ${sink.deliveries.size} events delivered, ${undelivered.length} undelivered, ${manyDeliveryIds.length} under >1 delivery id, ${repeatedPosts.length} posted more than once\n` +
            `  sse: ${JSON.stringify(sse)}\n` +
            `  budget ${PUBLISH_BUDGET}/min over 3 instances: ${admitted} of ${budgetAnswers.length} admitted in ${budgetSeconds.toFixed(1)} s (refill ${refill})`,
        )
        const stored = new Map(events.map((e) => [publicationKey(e), e]))
        for (const id of undelivered.slice(0, 3))
          console.log(`[multi-instance] undelivered: ${JSON.stringify(stored.get(id))}`)
        for (const [id, ids] of manyDeliveryIds.slice(0, 3)) {
          console.log(`[multi-instance] delivery ids ${[...ids].join(', ')} for ${JSON.stringify(stored.get(id))}`)
        }
        expect(problems.slice(0, 20)).toEqual([])
        expect(registryTally.acked).toBeGreaterThan(0)
        expect(controlPlaneTally.acked).toBeGreaterThan(0)
        expect(missingInControlPlane.slice(0, 5)).toEqual([])
        expect(twiceInControlPlane.slice(0, 5)).toEqual([])
        expect({ undelivered: undelivered.slice(0, 5), stray: strayDeliveries.slice(0, 5) }).toEqual({
          undelivered: [],
          stray: [],
        })
        expect(manyDeliveryIds.slice(0, 5)).toEqual([])
        // Not asserted: POSTs per publication. Delivery is at-least-once under one delivery id: a delivery the sink
        // answered whose instance died (or timed out) before recording the answer is sent again under the same
        // X-ACDP-Event-Id once its lease expires; receivers dedupe on that id. The count is logged above.
        for (const faults of Object.values(sse)) {
          expect(faults).toMatchObject({ missing: 0, repeated: 0, unknown: 0, inversions: 0 })
        }
        expect(clients.resuming.connections).toBeGreaterThan(KILLS + 1)
        expect(admitted).toBeGreaterThan(0)
        expect(admitted).toBeLessThanOrEqual(PUBLISH_BUDGET + refill)
        expect(budgetAnswers.filter((s) => s !== 201 && s !== 429)).toEqual([])
      } finally {
        abort.abort()
        haproxy?.kill('SIGTERM')
        await Promise.all([...registries, ...controlPlanes].map((s) => s.stop()))
        await sink.close()
        await Promise.all([registryDb.dispose(), controlPlaneDb.dispose()])
      }
    },
  )
})

/** A stream or delivery event's key: its ctx_id for a publication (stored once per ctx_id), else its event id. */
function publicationKey(data: Record<string, unknown>): string {
  // `type` in stream and delivery events, `eventType` in GET /events.
  return (data['type'] ?? data['eventType']) === 'context_published' && typeof data['ctxId'] === 'string'
    ? data['ctxId']
    : `event:${String(data['eventId'])}`
}

function emptyLedger(): Received {
  return { eventIds: [], frameIds: [], connections: 0 }
}

/** The frames of `received` that carry a context_published event (the stream also carries run notices). */
function publishedOnly(received: Received, published: Set<string>): Received {
  const keep = received.eventIds.map((id) => published.has(id))
  return {
    connections: received.connections,
    eventIds: received.eventIds.filter((_, i) => keep[i]),
    frameIds: received.frameIds.filter((_, i) => keep[i]),
  }
}
