/**
 * Test support: a control plane app on a fresh migrated store, with a fixed, steppable clock and deterministic
 * keys. Routes are exercised with `app.inject()`.
 */
import type { TestDatabaseTarget } from '@acdp/storage'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../../src/app.js'
import { type ControlPlaneConfig, loadConfig } from '../../src/core/config.js'
import type { ControlPlaneDeps } from '../../src/core/deps.js'
import { type ControlPlaneMetrics, createMetrics } from '../../src/core/metrics.js'
import { loadDomainPacks } from '../../src/domain-packs/domain-packs.js'
import { type BusEvent, createMemoryEventBus } from '../../src/events/event-bus.js'
import { createSecretKeyring } from '../../src/core/secret-box.js'
import type { ControlPlaneStore } from '../../src/store/store.js'
import { openMigratedStore } from './store-targets.js'

export const TEST_WEBHOOK_SECRET = 'global-webhook-secret-0123456789'
export const USER_KEY = 'user-key-0123456789abcdef'
export const ADMIN_KEY = 'admin-key-0123456789abcdef'
export const TENANT_KEY = 'tenant-key-0123456789abcdef'
/** Fixed start time of the test clock. */
export const T0 = Date.UTC(2026, 0, 15, 12, 0, 0)

/** Environment of a typical test instance: keys configured, global secret set. */
export const BASE_ENV: Record<string, string> = {
  NODE_ENV: 'test',
  LOG_LEVEL: 'silent',
  WEBHOOK_SECRET: TEST_WEBHOOK_SECRET,
  AUTH_API_KEYS: USER_KEY,
  AUTH_ADMIN_API_KEYS: ADMIN_KEY,
  SECRETS_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString('base64'),
  READINESS_CACHE_MS: '0',
}

export interface TestApp {
  app: FastifyInstance
  store: ControlPlaneStore
  config: ControlPlaneConfig
  deps: ControlPlaneDeps
  metrics: ControlPlaneMetrics
  /** Events the bus delivered, in order. */
  published: BusEvent[]
  /** Current value of a counter with the given labels (0 when never incremented). */
  counter(name: string, labels: Record<string, string>): Promise<number>
  /** Moves the clock forward. */
  advance(ms: number): void
  close(): Promise<void>
}

/** Builds an app on `target` with BASE_ENV plus `env`; `overrides` replace deps members. */
export async function openTestApp(
  target: TestDatabaseTarget,
  env: Record<string, string> = {},
  overrides: Partial<ControlPlaneDeps> = {},
  beforeReady?: (app: FastifyInstance) => void,
): Promise<TestApp> {
  const config = loadConfig({ ...BASE_ENV, ...env })
  const { store, database } = await openMigratedStore(target)
  let now = T0
  let counter = 0
  const metrics = createMetrics({ collectProcessMetrics: false })
  const published: BusEvent[] = []
  const bus = createMemoryEventBus()
  bus.subscribe({ onEvent: (event) => published.push(event) })
  const deps: ControlPlaneDeps = {
    store,
    database,
    clock: () => new Date(now),
    random: (size) => {
      counter += 1
      return new Uint8Array(size).fill(counter % 256)
    },
    secrets: createSecretKeyring(new Uint8Array(32).fill(9)),
    bus,
    metrics,
    domainPacks: loadDomainPacks(config.domainPacks),
    ...overrides,
  }
  const app = await buildApp(config, deps)
  beforeReady?.(app)
  await app.ready()
  return {
    app,
    store,
    config,
    deps,
    metrics,
    published,
    advance(ms) {
      now += ms
    },
    async counter(name, labels) {
      const metric = await metrics.registry.getSingleMetric(name)?.get()
      const value = metric?.values.find((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l))
      return value?.value ?? 0
    },
    async close() {
      await app.close()
      await bus.close()
      await store.close()
    },
  }
}

/** Authorization header for a key. */
export function bearer(key: string): Record<string, string> {
  return { authorization: `Bearer ${key}` }
}
