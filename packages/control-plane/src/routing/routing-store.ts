/**
 * The run outcomes the bandit router learns from: for each finished run (completed or failed) of a tenant, which
 * agents published which context types in it, and whether any of those contexts was retracted since. One grouped
 * query over the core tables; the most recent MAX_OUTCOMES (run, agent, type) triples are used.
 */
import type { Kysely } from 'kysely'
import { sql } from 'kysely'
import type { ControlPlaneTables } from '../store/schema.js'

export interface AgentRunOutcome {
  agentDid: string
  contextType: string
  status: 'completed' | 'failed'
  /** One of the agent's contexts of this type in the run is retracted now. */
  retracted: boolean
}

export const MAX_OUTCOMES = 20_000

export interface RoutingStore {
  listRunOutcomes(tenantId: string): Promise<AgentRunOutcome[]>
}

export function createRoutingStore(database: { db: Kysely<unknown> }): RoutingStore {
  const db = database.db as unknown as Kysely<ControlPlaneTables>
  return {
    async listRunOutcomes(tenantId) {
      const rows = await db
        .selectFrom('runs as r')
        .innerJoin('context_events as e', (join) =>
          join.onRef('e.tenant_id', '=', 'r.tenant_id').onRef('e.run_id', '=', 'r.run_id'),
        )
        .leftJoin('context_lifecycle as l', (join) =>
          join.onRef('l.tenant_id', '=', 'e.tenant_id').onRef('l.ctx_id', '=', 'e.ctx_id'),
        )
        .select([
          'e.agent_id as agent_id',
          'e.context_type as context_type',
          'r.status as status',
          sql<number>`max(coalesce(l.retracted, 0))`.as('retracted'),
          sql<number>`max(r.updated_at)`.as('finished_at'),
        ])
        .where('r.tenant_id', '=', tenantId)
        .where('r.status', 'in', ['completed', 'failed'])
        .where('e.event_type', '=', 'context_published')
        .where('e.agent_id', 'is not', null)
        .where('e.context_type', 'is not', null)
        .groupBy(['r.run_id', 'e.agent_id', 'e.context_type', 'r.status'])
        .orderBy('finished_at', 'desc')
        .limit(MAX_OUTCOMES)
        .execute()
      return rows.map((row) => ({
        agentDid: row.agent_id ?? '',
        contextType: row.context_type ?? '',
        status: row.status === 'completed' ? 'completed' : 'failed',
        retracted: Number(row.retracted) > 0,
      }))
    },
  }
}
