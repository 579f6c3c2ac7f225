/** GET /agents and GET /agents/*did. */
import { Type } from 'typebox'
import { Timestamp } from './common.js'

export const AgentShape = Type.Object({
  agentDid: Type.String(),
  tenantId: Type.String(),
  firstSeen: Timestamp,
  lastSeen: Timestamp,
  registryAuthority: Type.String(),
  contextCount: Type.Integer(),
  eventCount: Type.Integer(),
})

export const AgentListShape = Type.Object({ data: Type.Array(AgentShape), total: Type.Integer() })
