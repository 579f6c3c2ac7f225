/**
 * Webhook secret rotation while the registry keeps delivering (docs/deploy.md "Rotation"): our registry and our
 * control plane on real loopback sockets, the registry's webhooks signed with the enrollment's secret. A
 * publisher publishes without pause throughout; meanwhile the rotation runs exactly as the guide says, with the
 * guide's `acdp registries` commands:
 *
 *   1. `acdp registries rotate-secret <authority> --secret-file … --tenant …` on the control plane;
 *   2. a registry instance with the new secret starts beside the old one (both deliver; publishes alternate);
 *   3. the old instance stops (its queued deliveries still go out, signed with the old secret);
 *   4. `acdp registries drop-previous-secret <authority> --tenant …`.
 *
 * Asserted: no delivery was refused (the control plane's signature-rejection counter stays 0), every
 * acknowledged publish became exactly one ingested event, and after step 4 a delivery signed with the old secret
 * is refused (401) while the new secret is accepted.
 */
import { execFileSync } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { signWebhookBody } from '@acdp/protocol'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli } from '../../packages/cli/src/cli.js'
import { captureIo } from '../../packages/cli/src/test-io.js'
import { loadConfig as loadControlPlaneConfig } from '../../packages/control-plane/src/core/config.js'
import { type RunningControlPlane, startControlPlane } from '../../packages/control-plane/src/start.js'
import { resolveConfig } from '../../packages/registry/src/core/config.js'
import { type RunningRegistry, startRegistry } from '../../packages/registry/src/start.js'
import { didKeyProducer, minimalUnsigned, signRequest } from '../../packages/registry/test/support/registry-harness.js'
import { eventually as waitFor } from '../support/eventually.js'

const AUTHORITY = 'registry.rotation.test'
const TENANT = 'acme'
const ADMIN_KEY = 'rotation-admin-key-0123456789'
const GLOBAL_SECRET = 'rotation-global-webhook-secret-0123'
const OLD_SECRET = 'rotation-old-registry-secret-0123456789'
const WAIT_MS = 90_000

const eventually = <T>(what: string, probe: () => Promise<T | undefined>): Promise<T> =>
  waitFor(what, probe, { timeoutMs: WAIT_MS, intervalMs: 50 })

/** A publisher that publishes one context after another to whichever registry instances are listed. */
function startPublisher(targets: () => string[]) {
  const producer = didKeyProducer()
  const acknowledged: string[] = []
  const failures: string[] = []
  let stopped = false
  let turn = 0
  /**
   * One publish, retried with the same body and Idempotency-Key when the connection fails: an instance being
   * stopped may reset a keep-alive connection the request was just written to (as in a real rollover), and the
   * retry goes to whichever instances are listed then. A replay (200) names the same ctx_id and announces nothing.
   */
  async function publishOnce(body: string, key: string): Promise<Response> {
    for (let attempt = 1; ; attempt++) {
      const urls = targets()
      const url = urls[turn++ % urls.length] as string
      try {
        return await fetch(`${url}/contexts`, {
          method: 'POST',
          headers: { 'content-type': 'application/acdp+json', 'idempotency-key': key },
          body,
        })
      } catch (error) {
        if (attempt >= 5) throw error
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
    }
  }
  const done = (async () => {
    while (!stopped) {
      const body = JSON.stringify(signRequest(producer, minimalUnsigned(producer, { title: `rotation ${turn}` })))
      const answer = await publishOnce(body, randomUUID())
      if (answer.status === 201 || answer.status === 200) {
        acknowledged.push(((await answer.json()) as { ctx_id: string }).ctx_id)
      } else failures.push(`${answer.status} ${await answer.text()}`)
    }
  })()
  return {
    acknowledged,
    failures,
    /** Resolves once `count` more publishes than now were acknowledged. */
    async advance(count: number): Promise<void> {
      const target = acknowledged.length + count
      await eventually(`${count} more publishes (refused so far: ${failures.slice(0, 3).join('; ')})`, async () =>
        acknowledged.length >= target || failures.length > 0 ? true : undefined,
      )
      if (failures.length > 0) throw new Error(`publishes refused: ${failures.slice(0, 3).join('; ')}`)
    },
    async stop(): Promise<void> {
      stopped = true
      await done
    },
  }
}

describe('webhook secret rotation while the registry delivers', { timeout: 300_000 }, () => {
  let dir: string
  let controlPlane: RunningControlPlane
  const registries: RunningRegistry[] = []

  async function startRegistryInstance(secret: string): Promise<{ instance: RunningRegistry; url: string }> {
    const config = resolveConfig(
      {
        registry: { authority: AUTHORITY, base_url: `https://${AUTHORITY}`, log_level: 'silent' },
        storage: { backend: 'sqlite', sqlite_path: join(dir, 'registry.db') },
        // Retries and a long timeout so that a slow machine cannot lose a delivery; a refusal would still show
        // in the control plane's signature-rejection counter, which must stay 0.
        webhook: { enabled: true, url: `${controlPlane.url}/ingest/acdp`, secret, timeout_seconds: 30, max_retries: 3 },
        outbound: { allow_cidrs: ['127.0.0.1/32'], allow_http_for_allowlisted: true },
        // One agent publishes without pause for the whole test: its per-agent budget is not what is tested.
        limits: { publish_rate_per_minute: 0 },
      },
      { nodeEnv: 'test' },
    )
    const instance = await startRegistry(config)
    registries.push(instance)
    await instance.app.listen({ host: '127.0.0.1', port: 0 })
    return { instance, url: `http://127.0.0.1:${(instance.app.server.address() as AddressInfo).port}` }
  }

  async function cli(args: string[]): Promise<string> {
    const io = captureIo({ cwd: dir, env: { ACDP_API_KEY: ADMIN_KEY } })
    const code = await runCli([...args, '--control-plane', controlPlane.url, '--tenant', TENANT], io)
    expect(io.err()).toBe('')
    expect(code).toBe(0)
    return io.out()
  }

  async function controlPlaneCounters(): Promise<{ refusedSignatures: number; events: number }> {
    const metrics = await (await fetch(`${controlPlane.url}/metrics`)).text()
    const refused = /^acdp_ingest_rejected_total\{reason="signature"\} (\d+)$/m.exec(metrics)?.[1]
    const registries = (await (
      await fetch(`${controlPlane.url}/registries`, {
        headers: { authorization: `Bearer ${ADMIN_KEY}`, 'x-tenant-id': TENANT },
      })
    ).json()) as { data: Array<{ authority: string; eventCount: number }> }
    return {
      refusedSignatures: Number(refused ?? 0),
      events: registries.data.find((r) => r.authority === AUTHORITY)?.eventCount ?? 0,
    }
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'acdp-rotation-'))
    controlPlane = await startControlPlane(
      loadControlPlaneConfig({
        NODE_ENV: 'test',
        LOG_LEVEL: 'silent',
        HOST: '127.0.0.1',
        PORT: '0',
        SQLITE_PATH: join(dir, 'control-plane.db'),
        AUTH_ADMIN_API_KEYS: ADMIN_KEY,
        SECRETS_ENCRYPTION_KEY: Buffer.alloc(32, 5).toString('base64'),
        WEBHOOK_SECRET: GLOBAL_SECRET,
      }),
    )
    const enrolled = await fetch(`${controlPlane.url}/registries/enroll`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ authority: AUTHORITY, tenantId: TENANT, webhookSecret: OLD_SECRET }),
    })
    expect(enrolled.status).toBe(200)
  }, 120_000)

  afterAll(async () => {
    for (const registry of registries) await registry.close()
    await controlPlane?.close()
    rmSync(dir, { recursive: true, force: true })
  }, 120_000)

  it('refuses no delivery, ingests every publish once, and refuses the old secret after the rotation ends', async () => {
    // The guide's command for the new secret.
    execFileSync('sh', ['-c', 'openssl rand -hex 32 > new-webhook-secret'], { cwd: dir })
    const newSecret = readFileSync(join(dir, 'new-webhook-secret'), 'utf8').trim()
    expect(newSecret).toMatch(/^[0-9a-f]{64}$/)
    const old = await startRegistryInstance(OLD_SECRET)
    let targets = [old.url]
    const publisher = startPublisher(() => targets)
    try {
      await publisher.advance(5)

      const rotated = await cli([
        'registries',
        'rotate-secret',
        AUTHORITY,
        '--secret-file',
        'new-webhook-secret',
        '--valid-for',
        '86400',
      ])
      expect(rotated).toMatch(/new webhook secret in force; the previous one is accepted until \d{4}-/)
      await publisher.advance(5)

      const next = await startRegistryInstance(newSecret)
      targets = [old.url, next.url]
      await publisher.advance(10)
      targets = [next.url]
      // Stopping the old instance drains its queue: those deliveries carry the old secret, still accepted.
      await old.instance.close()
      registries.splice(registries.indexOf(old.instance), 1)
      await publisher.advance(5)

      expect(await cli(['registries', 'drop-previous-secret', AUTHORITY])).toBe(
        `${AUTHORITY}: only the current webhook secret is accepted\n`,
      )
      await publisher.advance(5)
    } finally {
      await publisher.stop()
    }

    expect(publisher.failures).toEqual([])
    const published = publisher.acknowledged.length
    const counters = await eventually('every publish ingested', async () => {
      const now = await controlPlaneCounters()
      return now.events >= published || now.refusedSignatures > 0 ? now : undefined
    })
    expect(counters).toEqual({ refusedSignatures: 0, events: published })
    const raw = JSON.stringify({
      event_id: '70000000-0000-4000-8000-000000000001',
      schema_version: '1.0',
      type: 'context_retrieved',
      registry_authority: AUTHORITY,
      ctx_id: publisher.acknowledged[0],
      requester_did: null,
      at: new Date().toISOString(),
    })
    const deliver = (secret: string) =>
      fetch(`${controlPlane.url}/ingest/acdp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-acdp-signature': signWebhookBody(secret, raw) },
        body: raw,
      }).then((answer) => answer.status)
    expect(await deliver(OLD_SECRET)).toBe(401)
    expect(await deliver(newSecret)).toBe(204)
  })
})
