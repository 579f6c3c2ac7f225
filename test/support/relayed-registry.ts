/**
 * A registry of this repository for the cross-package suites, wired to a control plane: SQLite in `dataDir`,
 * receipts and the transparency log on (lifecycle optionally), its webhooks sent through `relay` to the plane's
 * ingest with the test secret, listening on loopback and enrolled at the plane for `tenant`.
 */
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { resolveConfig } from '../../packages/registry/src/core/config.js'
import { type RunningRegistry, startRegistry } from '../../packages/registry/src/start.js'
import { TEST_WEBHOOK_SECRET, type TestApp } from '../../packages/control-plane/test/support/test-app.js'
import type { WebhookRelay } from './webhook-relay.js'

export interface RelayedRegistryOptions {
  authority: string
  tenant: string
  dataDir: string
  /** Fills the receipt signing seed, so each suite's registry has its own key. */
  receiptSeedByte: number
  lifecycle?: boolean
}

export interface RelayedRegistry {
  registry: RunningRegistry
  /** The registry's loopback base URL (its enrolled base URL). */
  url: string
}

export async function startRelayedRegistry(
  plane: TestApp,
  relay: WebhookRelay,
  options: RelayedRegistryOptions,
): Promise<RelayedRegistry> {
  const { authority } = options
  const registry = await startRegistry(
    resolveConfig(
      {
        registry: { authority, base_url: `https://${authority}`, log_level: 'silent' },
        storage: { backend: 'sqlite', sqlite_path: join(options.dataDir, 'registry.db') },
        receipt: { signing_key_seed_b64: Buffer.alloc(32, options.receiptSeedByte).toString('base64') },
        log: { enabled: true, instance: '1' },
        ...(options.lifecycle ? { lifecycle: { enabled: true } } : {}),
        webhook: {
          enabled: true,
          url: `${relay.url}/ingest/acdp`,
          secret: TEST_WEBHOOK_SECRET,
          timeout_seconds: 2,
          max_retries: 0,
        },
        outbound: { allow_cidrs: ['127.0.0.1/32'], allow_http_for_allowlisted: true },
      },
      { nodeEnv: 'test' },
    ),
  )
  await registry.app.listen({ host: '127.0.0.1', port: 0 })
  const url = `http://127.0.0.1:${(registry.app.server.address() as AddressInfo).port}`
  await plane.store.upsertEnrollment({ authority, tenantId: options.tenant, baseUrl: url, now: 0 })
  return { registry, url }
}
