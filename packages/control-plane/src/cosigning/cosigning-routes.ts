/**
 * Public witness endpoints (product spec "Witness cosigning"; RFC-ACDP-0015 §6.2, §9), registered only when
 * WITNESS_COSIGNING_ENABLED=true (otherwise the paths answer 404): our cosignatures, the witness capabilities
 * document and our DID document.
 */
import { LOG_ID_PATTERN } from '@acdp/protocol'
import { ControlPlaneError } from '../core/errors.js'
import { listOwnCosignatures } from '../witness/witness-state.js'
import { markRoutesPublic, type RoutePlugin } from '../core/route-context.js'

const LOG_ID = new RegExp(LOG_ID_PATTERN)
const TREE_SIZE = /^(0|[1-9][0-9]{0,15})$/
/** covered_logs is advisory; a bounded list keeps the document small. */
const MAX_COVERED_LOGS = 1000

export const witnessPublicRoutes: RoutePlugin = async (app, { witness }) => {
  const identity = witness.identity
  if (identity === undefined) return
  markRoutesPublic(app)

  app.get('/log/witness', { schema: { tags: ['witness'] } }, async (request, reply) => {
    const query = readWitnessQuery(request.query as Record<string, unknown>)
    const signatures = await listOwnCosignatures(witness.store, query)
    return reply
      .type('application/acdp+json')
      .header('cache-control', 'no-store')
      .send({ witness_id: identity.witnessId, witness_signatures: signatures })
  })

  app.get('/.well-known/acdp-witness.json', { schema: { tags: ['witness'] } }, async (_request, reply) => {
    const covered = await witness.store.listCoveredLogs(MAX_COVERED_LOGS)
    return reply
      .type('application/json')
      .header('cache-control', 'public, max-age=300')
      .send(identity.capabilities(covered))
  })

  app.get('/.well-known/did.json', { schema: { tags: ['witness'] } }, async (_request, reply) =>
    reply.type('application/did+json').header('cache-control', 'public, max-age=300').send(identity.didDocument()),
  )
}

/**
 * `?log_id=` (a `did:web:…/log/<instance>` id) and `?tree_size=` (non-negative integer); anything else, a repeated
 * parameter or an unknown one is 400 `schema_violation` (RFC-ACDP-0015 §6.2). Attacker-controlled.
 */
function readWitnessQuery(query: Record<string, unknown>): { logId?: string; treeSize?: number } {
  const out: { logId?: string; treeSize?: number } = {}
  for (const [name, value] of Object.entries(query)) {
    if (typeof value !== 'string') throw schemaViolation(`${name} must be given once`)
    if (name === 'log_id') {
      if (value.length > 2048 || !LOG_ID.test(value))
        throw schemaViolation('log_id must be <did:web DID>/log/<instance>')
      out.logId = value
    } else if (name === 'tree_size') {
      if (!TREE_SIZE.test(value) || !Number.isSafeInteger(Number(value))) {
        throw schemaViolation('tree_size must be a non-negative integer')
      }
      out.treeSize = Number(value)
    } else {
      throw schemaViolation(`unknown query parameter ${name.slice(0, 64)}`)
    }
  }
  return out
}

function schemaViolation(message: string): ControlPlaneError {
  return new ControlPlaneError('schema_violation', message)
}
