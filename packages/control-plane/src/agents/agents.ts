/**
 * Agents observed in ingested events (product spec "Agents"): tenant-scoped, ordered by last_seen.
 */
import type { ControlPlaneDeps } from '../core/deps.js'
import { ControlPlaneError } from '../core/errors.js'
import { formatTimestamp } from '../core/http/wire-time.js'
import type { AgentRecord } from '../store/store.js'

/** An agent on the wire. */
export interface AgentView {
  agentDid: string
  tenantId: string
  firstSeen: string
  lastSeen: string
  /** Registry of the agent's latest event. */
  registryAuthority: string
  /** context_published events of the agent. */
  contextCount: number
  /** Events of any type naming the agent. */
  eventCount: number
}

function toAgentView(agent: AgentRecord): AgentView {
  return {
    agentDid: agent.agentDid,
    tenantId: agent.tenantId,
    firstSeen: formatTimestamp(agent.firstSeen),
    lastSeen: formatTimestamp(agent.lastSeen),
    registryAuthority: agent.registryAuthority,
    contextCount: agent.contextCount,
    eventCount: agent.eventCount,
  }
}

export async function listAgents(
  deps: Pick<ControlPlaneDeps, 'store'>,
  query: { tenantId: string; limit: number; offset: number },
): Promise<{ data: AgentView[]; total: number }> {
  const { agents, total } = await deps.store.listAgents(query)
  return { data: agents.map(toAgentView), total }
}

/** @throws ControlPlaneError AGENT_NOT_FOUND when the agent was never seen in the tenant. */
export async function getAgent(
  deps: Pick<ControlPlaneDeps, 'store'>,
  tenantId: string,
  agentDid: string,
): Promise<AgentView> {
  const agent = await deps.store.getAgent(tenantId, agentDid)
  if (agent === undefined) throw new ControlPlaneError('AGENT_NOT_FOUND', 'agent not found')
  return toAgentView(agent)
}
