/**
 * A foreign origin registry for federation tests: a loopback HTTPS server presenting a test-CA certificate for
 * `authority` and answering as the FakeRegistry it currently serves, the outbound policy client that reaches it
 * (127.0.0.1 allowed, the test CA trusted, `authority` resolved by fake DNS), and a registry under test resolving
 * through the production composition (createFederatedResolver) against it.
 */
import { createServer } from 'node:https'
import type { AddressInfo } from 'node:net'
import { createOutboundClient, type OutboundClient } from '@acdp/protocol'
import { createFakeDns } from '../../../protocol/test/support/fake-dns.js'
import { didDocumentOf, type FakeProducer, type FakeRegistry } from '../../../protocol/test/support/fake-registry.js'
import { createTestPki } from '../../../protocol/test/support/test-ca.js'
import type { RegistryConfigInput } from '../../src/core/config.js'
import { createFederatedResolver } from '../../src/federation/federated-resolver.js'
import type { TestRegistry, TestRegistryOptions } from './registry-harness.js'

type Reply = { status: number; body: string }

export interface FakeOrigin {
  port: number
  client: OutboundClient
  /** Every request path (query included) since the last {@link FakeOrigin.serve}, in arrival order. */
  requested: string[]
  /** Answers as `fake` from now on (and forgets the requests and any override). */
  serve(fake: FakeRegistry): void
  /** A reply that replaces the fake's for a path (a broken or hostile document), or undefined. */
  override: ((pathAndQuery: string) => Reply | undefined) | undefined
  close(): Promise<void>
}

export async function startFakeOrigin(authority: string): Promise<FakeOrigin> {
  const pki = createTestPki({ dnsNames: [authority], ipAddresses: ['127.0.0.1'] })
  let serving: FakeRegistry | undefined
  const server = createServer({ key: pki.keyPem, cert: pki.certPem }, (req, res) => {
    const path = req.url ?? '/'
    origin.requested.push(path)
    const reply = origin.override?.(path) ?? serving?.answer(path) ?? { status: 404, body: '' }
    res.writeHead(reply.status, { 'content-type': 'application/acdp+json' })
    res.end(reply.body)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const client = createOutboundClient({
    allowCidrs: ['127.0.0.1/32'],
    trustedCaCertificates: [pki.caPem],
    lookup: createFakeDns({ [authority]: ['127.0.0.1'] }).lookup,
  })
  const origin: FakeOrigin = {
    port: (server.address() as AddressInfo).port,
    client,
    requested: [],
    override: undefined,
    serve(fake) {
      serving = fake
      origin.requested.length = 0
      origin.override = undefined
    },
    async close() {
      await client.close()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
  return origin
}

/**
 * Starts a registry (through `start`) that resolves foreign ctx_ids at `origin`, now serving `fake`, with the
 * production resolver composition and the trust settings of `config`; the fake's and the producer's did:web
 * documents are answered by the registry's fake DID web.
 */
export async function startFederatedRegistry(
  start: (options?: TestRegistryOptions) => Promise<TestRegistry>,
  origin: FakeOrigin,
  fake: FakeRegistry,
  producer: FakeProducer,
  config: RegistryConfigInput = {},
): Promise<TestRegistry> {
  origin.serve(fake)
  const holder: { registry?: TestRegistry; resolver?: ReturnType<typeof createFederatedResolver> } = {}
  const r = await start({
    config,
    deps: {
      crossRegistry: {
        resolve: (ctxId) => {
          const registry = holder.registry as TestRegistry
          holder.resolver ??= createFederatedResolver({
            client: origin.client,
            resolver: registry.deps.resolver,
            clock: registry.clock.now,
            trustedOrigins: registry.config.registry.trusted_origins,
            originBaseUrl: (authority) => `https://${authority}:${origin.port}`,
          })
          return holder.resolver.resolve(ctxId)
        },
      },
    },
  })
  holder.registry = r
  const json = (value: unknown) => ({ status: 200, body: new TextEncoder().encode(JSON.stringify(value)) })
  r.dids.answer(fake.registryDid, json(fake.didDocument()))
  r.dids.answer(producer.did, json(didDocumentOf(producer.did, [producer])))
  return r
}

/** `GET /contexts/{ctx_id}` on the registry under test. */
export const getForeign = (r: TestRegistry, ctxId: string) =>
  r.app.inject({ method: 'GET', url: `/contexts/${encodeURIComponent(ctxId)}` })
