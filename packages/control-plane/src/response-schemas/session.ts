/** GET /session: the caller's tenant, role and credential kind. */
import { Type } from 'typebox'

export const SessionShape = Type.Object({
  tenantId: Type.String(),
  isAdmin: Type.Boolean(),
  credential: Type.Union([Type.Literal('api_key'), Type.Literal('jwt'), Type.Literal('development')]),
})
