/**
 * Bandit routing (product spec "Bandit arm", "Domain packs and routing"). One arm per (capability, agent) that
 * passes the capability gate: the agent declared the capability in the tenant. Arms learn from real run outcomes:
 * an agent that published a context of the capability's type (the URN's `<type>` segment) in a finished run
 * scores a success when the run completed and none of those contexts was retracted since, a failure when the run
 * failed or a context was retracted. alpha = successes + 1, beta = failures + 1, mean = alpha / (alpha + beta).
 *
 * Arms are computed from the database on each call, so every instance agrees and nothing is lost on restart.
 */
import type { Uniform } from './thompson.js'
import { type Selection, selectArm } from './thompson.js'
import type { ControlPlaneAuthStore } from '../auth/auth-store.js'
import type { ControlPlaneDeps } from '../core/deps.js'
import { createRoutingStore, type RoutingStore } from './routing-store.js'

export interface BanditArm {
  taskClass: string
  agentDid: string
  alpha: number
  beta: number
  mean: number
  observations: number
}

export interface RoutingDeps {
  authStore: ControlPlaneAuthStore
  routingStore: RoutingStore
  random: (size: number) => Uint8Array
}

const MAX_CAPABILITIES = 10_000

/** The router's dependencies over the app's database. */
export function createRoutingDeps(
  deps: Pick<ControlPlaneDeps, 'database' | 'random'>,
  authStore: ControlPlaneAuthStore,
): RoutingDeps {
  return {
    authStore,
    routingStore: createRoutingStore(deps.database as unknown as Parameters<typeof createRoutingStore>[0]),
    random: deps.random,
  }
}

/** Every arm of the tenant (optionally of one capability), by task class then mean (best first). */
export async function listArms(deps: RoutingDeps, tenantId: string, capability?: string): Promise<BanditArm[]> {
  const [capabilities, outcomes] = await Promise.all([
    deps.authStore.listTenantCapabilities(tenantId, MAX_CAPABILITIES),
    deps.routingStore.listRunOutcomes(tenantId),
  ])
  const tally = new Map<string, { successes: number; failures: number }>()
  for (const outcome of outcomes) {
    const key = `${outcome.agentDid}\u0000${outcome.contextType}`
    const entry = tally.get(key) ?? { successes: 0, failures: 0 }
    if (outcome.status === 'completed' && !outcome.retracted) entry.successes += 1
    else entry.failures += 1
    tally.set(key, entry)
  }
  const arms: BanditArm[] = []
  for (const declared of capabilities) {
    if (capability !== undefined && declared.capabilityUri !== capability) continue
    const type = declared.capabilityUri.split(':')[4] ?? ''
    const { successes, failures } = tally.get(`${declared.agentDid}\u0000${type}`) ?? { successes: 0, failures: 0 }
    const alpha = successes + 1
    const beta = failures + 1
    arms.push({
      taskClass: declared.capabilityUri,
      agentDid: declared.agentDid,
      alpha,
      beta,
      mean: alpha / (alpha + beta),
      observations: successes + failures,
    })
  }
  arms.sort((a, b) => (a.taskClass === b.taskClass ? b.mean - a.mean : a.taskClass < b.taskClass ? -1 : 1))
  return arms
}

/** Picks an agent for `capability` among the agents that declared it; null when none did. */
export async function selectAgent(
  deps: RoutingDeps,
  tenantId: string,
  capability: string,
  explorationFraction: number,
): Promise<Selection | null> {
  const arms = await listArms(deps, tenantId, capability)
  return selectArm(arms, explorationFraction, uniformFrom(deps.random))
}

/** A uniform (0, 1) draw from 6 random bytes (48 bits). */
function uniformFrom(random: (size: number) => Uint8Array): Uniform {
  return () => {
    const bytes = random(6)
    let value = 0
    for (const byte of bytes) value = value * 256 + byte
    return (value + 0.5) / 2 ** 48
  }
}
