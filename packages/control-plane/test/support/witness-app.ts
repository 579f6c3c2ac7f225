/**
 * Test support: a control plane with the log witness (and cosigning) on, wired to a registry simulator through an
 * outbound client that trusts the simulator's test CA. Tests drive polls with `pollDue()` and step the clock.
 */
import { generateKeyPairSync } from 'node:crypto'
import type { TestDatabaseTarget } from '@acdp/storage'
import { startRegistrySimulator, type RegistrySimulator, type SimulatedRegistry } from './log-registry-simulator.js'
import { ADMIN_KEY, bearer, openTestApp, T0, type TestApp, USER_KEY } from './test-app.js'

export const WITNESS_ID = 'did:web:witness.test'
export const TENANT = 'acme'
export const INTERVAL_SECONDS = 10

/** A fresh Ed25519 PKCS#8 PEM (the witness's dedicated key). */
export function witnessKeyPem(): string {
  return generateKeyPairSync('ed25519').privateKey.export({ format: 'pem', type: 'pkcs8' }).toString()
}

export const WITNESS_ENV: Record<string, string> = {
  LOG_WITNESS_ENABLED: 'true',
  LOG_WITNESS_SCHEDULE: 'false',
  LOG_WITNESS_INTERVAL_SECONDS: String(INTERVAL_SECONDS),
  LOG_WITNESS_UNREACHABLE_THRESHOLD: '2',
  WITNESS_COSIGNING_ENABLED: 'true',
  WITNESS_ID,
  PUBLIC_HOST: 'witness.test',
}

/** A JSON response body as the tests read it (shapes are asserted, not typed). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are untyped JSON in tests
export type Json = any

export interface WitnessTestApp extends TestApp {
  sim: RegistrySimulator
  /** Adds a simulated registry and enrolls it in TENANT. */
  enroll(name: string, leaves?: number): Promise<SimulatedRegistry>
  /** Advances the clock one poll interval and polls every due registry. */
  nextPoll(): Promise<number>
  /** GET with a user key in TENANT. */
  get(url: string): Promise<{ statusCode: number; json(): Json; headers: Record<string, unknown> }>
  /** POST with the admin key in TENANT. */
  postAdmin(url: string): Promise<{ statusCode: number; json(): Json }>
}

export async function openWitnessApp(
  target: TestDatabaseTarget,
  env: Record<string, string> = {},
): Promise<WitnessTestApp> {
  let clock = () => new Date(T0)
  const sim = await startRegistrySimulator(() => clock())
  const t = await openTestApp(
    target,
    { ...WITNESS_ENV, WITNESS_SIGNING_PRIVATE_KEY_PEM: witnessKeyPem(), LOG_LEVEL: 'error', ...env },
    { outbound: sim.outbound() },
  )
  clock = t.deps.clock
  const poller = t.app.witness.poller
  if (poller === undefined) throw new Error('witness poller not enabled')
  return {
    ...t,
    sim,
    async enroll(name, leaves = 0) {
      const registry = sim.addRegistry(name, leaves)
      await t.store.upsertEnrollment({
        authority: registry.authority,
        tenantId: TENANT,
        baseUrl: registry.baseUrl,
        now: t.deps.clock().getTime(),
      })
      return registry
    },
    async nextPoll() {
      t.advance(INTERVAL_SECONDS * 1000)
      return poller.pollDue()
    },
    get(url) {
      return t.app.inject({ method: 'GET', url, headers: { ...bearer(USER_KEY), 'x-tenant-id': TENANT } })
    },
    postAdmin(url) {
      return t.app.inject({ method: 'POST', url, headers: { ...bearer(ADMIN_KEY), 'x-tenant-id': TENANT } })
    },
    async close() {
      await t.close()
      await sim.close()
    },
  }
}
