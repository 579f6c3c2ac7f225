/**
 * Assembles the transparency-log witness of one app instance from the configuration and the injected deps: the
 * witness store, the SSRF-safe outbound client and DID resolver, the optional cosigning identity, the quorum
 * policy, and the poller. buildApp registers the routes with it and ties `start`/`close` to the app lifecycle.
 */
import { createOutboundClient, DidResolver, MAX_DID_DOCUMENT_BYTES, type OutboundClient } from '@acdp/protocol'
import type { ControlPlaneConfig } from '../core/config.js'
import type { ControlPlaneDeps } from '../core/deps.js'
import { createWitnessStore, type WitnessStore } from './witness-store.js'
import { createWitnessMetrics } from './witness-metrics.js'
import { createWitnessIdentity, type WitnessIdentity } from './witness-identity.js'
import type { QuorumPolicy } from './witness-observation.js'
import { createWitnessPoller, type WitnessPoller } from './witness-poller.js'
import { createWitnessRegistryClient, type WitnessRegistryClient } from './witness-registry-client.js'
import { createRegistryKeyResolver } from './witness-registry-keys.js'

export interface WitnessFeature {
  store: WitnessStore
  /** Present when WITNESS_COSIGNING_ENABLED=true. */
  identity: WitnessIdentity | undefined
  /** Present when LOG_WITNESS_ENABLED=true. */
  poller: WitnessPoller | undefined
  start(): void
  /** Stops the poller, waits for in-flight polls, releases the outbound client it owns. Idempotent. */
  close(): Promise<void>
}

export interface WitnessFeatureInput {
  config: ControlPlaneConfig
  deps: Pick<ControlPlaneDeps, 'database' | 'bus' | 'metrics' | 'random' | 'clock' | 'webhookOutbox' | 'outbound'>
  log?: { warn(object: unknown, message?: string): void; error(object: unknown, message?: string): void }
  /** The app's registry reader (shared with the trust relay routes); built here from `outbound` when absent. */
  registryClient?: WitnessRegistryClient
}

/** Builds the feature; nothing is polled until `start()`. */
export function createWitnessFeature(input: WitnessFeatureInput): WitnessFeature {
  const { config, deps, log } = input
  const settings = config.witness
  const store = createWitnessStore(deps.database)
  const identity = settings.cosigning.enabled ? createWitnessIdentity(settings.cosigning) : undefined
  if (!settings.enabled) {
    return { store, identity, poller: undefined, start() {}, async close() {} }
  }
  const ownsOutbound = deps.outbound === undefined
  const outbound: OutboundClient =
    deps.outbound ??
    createOutboundClient({
      allowCidrs: [...config.outbound.allowCidrs],
      allowHttpForAllowlisted: config.outbound.allowHttpForAllowlisted,
      maxPools: config.outbound.maxPools,
      userAgent: 'acdp-control-plane-witness',
    })
  const now = () => deps.clock().getTime()
  const resolver = new DidResolver({
    fetchDidDocument: async (url) => {
      const response = await outbound.request(url, {
        headers: { accept: 'application/did+json, application/json' },
        maxBodyBytes: MAX_DID_DOCUMENT_BYTES,
      })
      return { status: response.status, body: response.body }
    },
    clock: now,
  })
  const ownWitnessId = identity?.witnessId
  const trusted = new Set(settings.quorum.trusted)
  const quorum: QuorumPolicy | undefined = settings.quorum.enabled
    ? {
        // External attestations only: our own cosignature never counts toward a quorum.
        isTrustedWitness: (witnessId) => witnessId !== ownWitnessId && trusted.has(witnessId),
        minWitnesses: settings.quorum.minWitnesses,
        maxFutureSkewMs: settings.quorum.maxClockSkewSeconds * 1000,
        resolveWitnessKey: (keyId) => resolver.resolveKey(keyId),
      }
    : undefined
  const poller = createWitnessPoller(
    {
      store,
      observation: {
        client:
          input.registryClient ??
          createWitnessRegistryClient({ outbound, now, requestTimeoutMs: witnessRequestTimeoutMs(config) }),
        resolveRegistryKey: createRegistryKeyResolver({ standard: resolver, outbound, now }),
        now: deps.clock,
        maxFutureSkewMs: settings.maxClockSkewSeconds * 1000,
        quorum,
        ownWitnessId,
      },
      identity,
      bus: deps.bus,
      webhookOutbox: deps.webhookOutbox,
      clock: deps.clock,
      random: deps.random,
      metrics: createWitnessMetrics(deps.metrics.registry),
      ...(log ? { log } : {}),
    },
    {
      intervalMs: settings.intervalSeconds * 1000,
      concurrency: settings.concurrency,
      pollTimeoutMs: settings.pollTimeoutMs,
      unreachableThreshold: settings.unreachableThreshold,
      excludeAuthorities: settings.excludeAuthorities,
      checkpointsKept: settings.checkpointsKept,
      cosignaturesKeptPerLog: settings.cosigning.cosignaturesKeptPerLog,
      tickMs: Math.min(1000, settings.intervalSeconds * 250),
      syncEveryMs: Math.min(30_000, settings.intervalSeconds * 1000),
    },
  )
  let isClosed = false
  return {
    store,
    identity,
    poller,
    start() {
      if (settings.schedule) poller.start()
    },
    async close() {
      if (isClosed) return
      isClosed = true
      await poller.close()
      if (ownsOutbound) await outbound.close()
    },
  }
}

/** Per-request bound of the registry reads (capabilities, checkpoint, proofs, DID documents). */
export function witnessRequestTimeoutMs(config: ControlPlaneConfig): number {
  return Math.min(config.witness.pollTimeoutMs, 10_000)
}
