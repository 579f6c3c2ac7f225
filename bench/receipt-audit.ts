/**
 * Receipt-audit benchmark (`npm run bench:receipt-audit`; figures in docs/performance/journal.md "Control plane: receipt
 * audit").
 *
 * In one process: a registry of this repository (receipts on, SQLite file) on loopback, and a control plane
 * (SQLite file, or PostgreSQL in a throwaway database when ACDP_TEST_DATABASE_URL is set and BENCH_BACKEND=postgres)
 * enrolling it with a plain-http base URL (loopback allowlisted). BENCH_AUDIT_EVENTS publications (default 2,000)
 * are published and ingested first; then the sweep runs until every one has a verdict. Reported: verdicts per
 * second, wall and CPU milliseconds per audited event (the process's CPU, which includes the registry answering
 * the GET /contexts and DID document reads — an upper bound of the control plane's own share), and the load
 * average. Loopback only; bounded by the event count.
 */
import { randomUUID } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { createProducer, createProducerKey, signTimestampedWebhook } from '@acdp/protocol'
import { loadConfig, startControlPlane } from '@acdp/control-plane'
import { resolveConfig, startRegistry } from '@acdp/registry'
import pg from 'pg'

const EVENTS = Number(process.env['BENCH_AUDIT_EVENTS'] ?? 2000)
const BACKEND = process.env['BENCH_BACKEND'] ?? 'sqlite'
const CONCURRENCY = process.env['BENCH_AUDIT_CONCURRENCY'] ?? '8'
const AUTHORITY = 'bench.audit.test'
const SECRET = 'bench-receipt-audit-secret-0123456789'
const ADMIN_KEY = 'bench-admin-key-0123456789abcdef'
const USER_KEY = 'bench-user-key-0123456789abcdef'
const TENANT = 'bench'

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'acdp-bench-audit-'))
  let database: { url: string; drop(): Promise<void> } | undefined
  if (BACKEND === 'postgres') database = await throwawayDatabase()
  const registry = await startRegistry(
    resolveConfig(
      {
        registry: { authority: AUTHORITY, base_url: `https://${AUTHORITY}`, log_level: 'silent' },
        storage: { backend: 'sqlite', sqlite_path: join(dir, 'registry.db') },
        receipt: { signing_key_seed_b64: Buffer.alloc(32, 0x2b).toString('base64') },
        limits: { publish_rate_per_minute: 0 },
      },
      { nodeEnv: 'test' },
    ),
  )
  await registry.app.listen({ host: '127.0.0.1', port: 0 })
  const registryUrl = `http://127.0.0.1:${(registry.app.server.address() as AddressInfo).port}`
  const plane = await startControlPlane(
    loadConfig({
      NODE_ENV: 'test',
      LOG_LEVEL: 'silent',
      HOST: '127.0.0.1',
      PORT: '0',
      ...(database === undefined ? { SQLITE_PATH: join(dir, 'control-plane.db') } : { DATABASE_URL: database.url }),
      WEBHOOK_SECRET: SECRET,
      AUTH_API_KEYS: USER_KEY,
      AUTH_ADMIN_API_KEYS: ADMIN_KEY,
      SECRETS_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
      OUTBOUND_ALLOW_CIDRS: '127.0.0.1/32',
      OUTBOUND_ALLOW_HTTP: 'true',
      RECEIPT_AUDIT_ENABLED: 'true',
      RECEIPT_AUDIT_SCHEDULE: 'false',
      RECEIPT_AUDIT_SETTLE_MS: '0',
      RECEIPT_AUDIT_BATCH: '200',
      RECEIPT_AUDIT_CONCURRENCY: CONCURRENCY,
    }),
  )
  try {
    const enrolled = await fetch(`${plane.url}/registries/enroll`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json', 'x-tenant-id': TENANT },
      body: JSON.stringify({ authority: AUTHORITY, baseUrl: registryUrl, tenantId: TENANT }),
    })
    if (!enrolled.ok) throw new Error(`enroll answered ${enrolled.status}: ${await enrolled.text()}`)
    const producer = createProducer({ registryUrl, key: createProducerKey() })
    for (let i = 0; i < EVENTS; i += 1) {
      const result = await producer.publish({ title: `bench ${i}`, type: 'analysis' }, { runId: 'bench-run' })
      const raw = JSON.stringify({
        event_id: randomUUID(),
        type: 'context_published',
        registry_authority: AUTHORITY,
        ctx_id: result.ctxId,
        lineage_id: result.response['lineage_id'],
        agent_id: producer.did,
        created_at: result.response['created_at'],
        run_id: 'bench-run',
        registry_receipt: result.response['registry_receipt'],
      })
      const ts = Math.floor(Date.now() / 1000)
      const answer = await fetch(`${plane.url}/ingest/acdp`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'x-acdp-timestamp': String(ts),
          'x-acdp-signature-timestamped': signTimestampedWebhook(SECRET, ts, raw),
        },
        body: raw,
      })
      if (answer.status !== 204) throw new Error(`ingest answered ${answer.status}: ${await answer.text()}`)
    }
    const auditor = plane.app.receiptAudit.auditor
    if (auditor === undefined) throw new Error('receipt audit not enabled')
    const load = loadavg()
    const cpu = process.cpuUsage()
    const started = performance.now()
    const verdicts = await auditor.sweepNow()
    const wallMs = performance.now() - started
    const used = process.cpuUsage(cpu)
    const cpuMs = (used.user + used.system) / 1000
    const trust = (await (
      await fetch(`${plane.url}/runs/bench-run`, {
        headers: { authorization: `Bearer ${USER_KEY}`, 'x-tenant-id': TENANT },
      })
    ).json()) as { trust?: { verified?: number } }
    console.log(
      JSON.stringify({
        backend: BACKEND,
        concurrency: Number(CONCURRENCY),
        events: EVENTS,
        verdicts,
        verifiedCount: trust.trust?.verified,
        verdictsPerSecond: Math.round((verdicts / wallMs) * 1000),
        wallMsPerEvent: Number((wallMs / verdicts).toFixed(3)),
        cpuMsPerEvent: Number((cpuMs / verdicts).toFixed(3)),
        loadAverageBefore: load.map((l) => Number(l.toFixed(2))),
        loadAverageAfter: loadavg().map((l) => Number(l.toFixed(2))),
      }),
    )
  } finally {
    await plane.close()
    await registry.close()
    await database?.drop()
    rmSync(dir, { recursive: true, force: true })
  }
}

/** A fresh database on the ACDP_TEST_DATABASE_URL server, dropped at the end. */
async function throwawayDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const base = process.env['ACDP_TEST_DATABASE_URL']
  if (base === undefined || base === '') throw new Error('BENCH_BACKEND=postgres needs ACDP_TEST_DATABASE_URL')
  const name = `acdp_bench_audit_${randomUUID().replace(/-/g, '').slice(0, 12)}`
  const admin = new pg.Client({ connectionString: base })
  await admin.connect()
  await admin.query(`CREATE DATABASE ${name}`)
  await admin.end()
  const url = new URL(base)
  url.pathname = `/${name}`
  return {
    url: url.toString(),
    async drop() {
      const cleanup = new pg.Client({ connectionString: base })
      await cleanup.connect()
      await cleanup.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await cleanup.end()
    },
  }
}

await main()
