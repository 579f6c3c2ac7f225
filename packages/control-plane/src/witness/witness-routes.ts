/**
 * Witness operator API (product spec "Registries and witness"): a registry's witness state, the tenant's alert
 * worklist, and acknowledgement (admin).
 */
import { Type } from 'typebox'
import { acknowledgeWitnessAlert, getLogWitnessState, listWitnessAlerts } from './witness-state.js'
import { WitnessAlertListShape, WitnessAlertShape, WitnessStateShape } from '../response-schemas/witness.js'
import type { RoutePlugin } from '../core/route-context.js'

const Authority = Type.Object({
  authority: Type.String({ minLength: 1, maxLength: 255, pattern: '^[A-Za-z0-9.:-]+$' }),
})

export const logWitnessRoutes: RoutePlugin = async (app, { deps, witness }) => {
  app.get(
    '/registries/log-witness/alerts',
    {
      schema: {
        summary: 'Log-witness alerts',
        tags: ['witness'],
        querystring: Type.Object(
          { includeAcknowledged: Type.Optional(Type.Boolean()) },
          { additionalProperties: false },
        ),
        response: { 200: WitnessAlertListShape },
      },
    },
    async (request) => {
      const { includeAcknowledged } = request.query as { includeAcknowledged?: boolean }
      return listWitnessAlerts(witness.store, request.tenantId, includeAcknowledged === true)
    },
  )

  app.get(
    '/registries/:authority/log-witness',
    {
      schema: {
        summary: "A registry's witnessed log head, failures and alert",
        tags: ['witness'],
        params: Authority,
        response: { 200: WitnessStateShape },
      },
    },
    async (request) => {
      const { authority } = request.params as { authority: string }
      return getLogWitnessState(witness.store, request.tenantId, authority)
    },
  )

  app.post(
    '/registries/:authority/log-witness/ack',
    {
      config: { auth: 'admin' },
      schema: {
        summary: 'Acknowledge a log-witness alert',
        tags: ['witness'],
        params: Authority,
        response: { 200: WitnessAlertShape },
      },
    },
    async (request) => {
      const { authority } = request.params as { authority: string }
      const actor = request.principal?.actorId ?? 'unknown'
      return acknowledgeWitnessAlert({ store: witness.store, clock: deps.clock }, request.tenantId, authority, actor)
    },
  )
}
