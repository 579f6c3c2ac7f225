/** Declared agent capabilities: POST /capabilities, GET /capabilities/search, GET /capabilities/by-agent/*did. */
import { Type } from 'typebox'

export const CapabilityShape = Type.Object({
  agent_did: Type.String(),
  capability_uri: Type.String(),
  declared_at: Type.String(),
  signed_by: Type.String(),
})

export const CapabilityListShape = Type.Object({ data: Type.Array(CapabilityShape), total: Type.Integer() })
