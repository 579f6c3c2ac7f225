/**
 * An enrolled registry's trust material for consumers that verify themselves (the console): its advertised
 * profiles, its DID document and a context's log inclusion evidence, relayed unverified (registries/registry-trust.ts).
 */
import { Type } from 'typebox'
import { ControlPlaneError } from '../core/errors.js'
import { parseProxiedCtxId } from '../core/proxied-ctx-id.js'
import {
  LogEvidenceShape,
  RegistryCapabilitiesShape,
  RegistryDidDocumentShape,
} from '../response-schemas/registries.js'
import type { RoutePlugin } from '../core/route-context.js'

const Authority = Type.Object({
  authority: Type.String({ minLength: 1, maxLength: 255, pattern: '^[A-Za-z0-9.:-]+$' }),
})

export const registryTrustRoutes: RoutePlugin = async (app, { registryTrust, gates }) => {
  app.get(
    '/registries/:authority/capabilities',
    {
      schema: {
        tags: ['registries'],
        summary: "An enrolled registry's advertised profiles (its /.well-known/acdp.json, cached up to 10 min)",
        params: Authority,
        response: { 200: RegistryCapabilitiesShape },
      },
    },
    async (request) => {
      const { authority } = request.params as { authority: string }
      return registryTrust.profiles(request.tenantId, authority)
    },
  )

  app.get(
    '/registries/:authority/did-document',
    {
      schema: {
        tags: ['registries'],
        summary: "An enrolled registry's did:web document (receipt and checkpoint keys), relayed unverified",
        params: Authority,
        response: { 200: RegistryDidDocumentShape },
      },
    },
    async (request) => {
      const { authority } = request.params as { authority: string }
      return registryTrust.didDocument(request.tenantId, authority)
    },
  )

  app.get(
    '/registries/:authority/log-evidence',
    {
      schema: {
        tags: ['registries'],
        summary: "A context's inclusion proof and the witness cosignatures of its checkpoint, relayed unverified",
        description: 'Gated like GET /contexts/*ctxId: policy action and quota `context.retrieve`.',
        params: Authority,
        querystring: Type.Object(
          { ctxId: Type.String({ minLength: 1, maxLength: 512 }) },
          { additionalProperties: false },
        ),
        response: { 200: LogEvidenceShape },
      },
    },
    async (request) => {
      const { authority } = request.params as { authority: string }
      const parsed = parseProxiedCtxId((request.query as { ctxId: string }).ctxId)
      if (parsed.authority !== authority.toLowerCase()) {
        throw new ControlPlaneError('VALIDATION_ERROR', 'ctxId is not a context of this registry')
      }
      // Evidence about one context is a read of that context: the federation proxy's policy action and quota.
      const principal = request.principal
      if (principal === undefined) throw new ControlPlaneError('UNAUTHORIZED', 'a valid bearer credential is required')
      gates.policy.enforce('context.retrieve', principal, request.tenantId, parsed.ctxId)
      await gates.quotas.consume({
        action: 'context.retrieve',
        tenantId: request.tenantId,
        agentDid: principal.subject,
      })
      return registryTrust.logEvidence(request.tenantId, parsed.authority, parsed.ctxId)
    },
  )
}
