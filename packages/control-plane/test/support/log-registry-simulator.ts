/**
 * Test support: a dishonest-registry simulator. One loopback HTTPS server (test CA, SNI names `*.reg.test`)
 * serves any number of simulated registries, each with its own did:web identity, Ed25519 receipt key and real
 * Merkle tree, answering `/.well-known/acdp.json`, `/.well-known/did.json`, `/log/checkpoint` and consistency-mode
 * `/log/proof`. Every answer is really signed, so the witness's real verifier decides; a registry can be told to
 * lie in each way the witness must catch (rewrite, split view, regression, reset, bad signature, foreign log id,
 * future timestamp, outage) or to aggregate cosignatures.
 */
import { once } from 'node:events'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { createServer, type Server } from 'node:https'
import type { AddressInfo } from 'node:net'
import {
  buildCheckpoint,
  createOutboundClient,
  ed25519PublicKeyFromSeed,
  encodeMultibaseKey,
  formatLogId,
  formatSha256,
  type LogCheckpoint,
  type LogCosignature,
  MemoryMerkleTree,
  type OutboundClient,
  registryDidForAuthority,
  signCheckpoint,
} from '@acdp/protocol'
import { createTestPki, type TestPki } from '../../../protocol/test/support/test-ca.js'

/** How a simulated registry answers `GET /log/checkpoint` (and its proofs). */
export type RegistryBehaviour =
  | { kind: 'honest' }
  /** Serves the checkpoint of another tree of the SAME size (a fork shown to this vantage). */
  | { kind: 'split_view' }
  /** Serves an older, smaller checkpoint. */
  | { kind: 'regression'; treeSize: number }
  /** Serves an empty tree under the same log id. */
  | { kind: 'reset_to_empty' }
  /** Serves a checkpoint whose root was altered after signing. */
  | { kind: 'bad_signature' }
  /** Serves a checkpoint of a log under another registry's DID, signed by that DID's key id. */
  | { kind: 'wrong_log_id' }
  /** Starts a new log instantiation (`/log/2`). */
  | { kind: 'new_instance' }
  /** Signs a timestamp one hour ahead of the clock. */
  | { kind: 'future_timestamp' }
  /** Answers 503 to everything. */
  | { kind: 'unreachable' }
  /** Answers 404 to consistency proofs. */
  | { kind: 'refuse_proofs' }
  /** Serves honest checkpoints and proofs, but the proof's own checkpoint is signed over a forked tree. */
  | { kind: 'forked_proof_checkpoint' }
  /** Does not advertise the transparency-log profile. */
  | { kind: 'no_log_profile' }
  /** Answers `body` verbatim (200) at /log/checkpoint. */
  | { kind: 'raw_checkpoint'; body: string }
  /** Answers `body` verbatim (200) at /log/proof. */
  | { kind: 'raw_proof'; body: string }

export interface SimulatedRegistry {
  readonly authority: string
  readonly baseUrl: string
  readonly registryDid: string
  readonly logId: string
  /** The tree the registry currently serves (rewrite swaps it). */
  tree: MemoryMerkleTree
  behaviour: RegistryBehaviour
  /** Cosignatures served in the RFC-ACDP-0015 §6.1 envelope (none: bare checkpoint). */
  witnessSignatures: LogCosignature[]
  /** Requests seen, by path. */
  readonly hits: Map<string, number>
  /** Appends `count` fresh leaves. */
  append(count: number): void
  /** Rewrites leaf `index` (history rewrite): the tree is rebuilt with one leaf changed, then served. */
  rewriteLeaf(index: number): void
  /** The honest signed checkpoint at the current size. */
  signedCheckpoint(): LogCheckpoint
}

/** A scripted answer of a custom host. */
export interface ScriptedAnswer {
  status: number
  body: unknown
  type?: string
}

/** Answers a request to a custom host (path and query), or undefined for 404. */
export type ScriptedHost = (path: string, query: URLSearchParams) => ScriptedAnswer | undefined

export interface RegistrySimulator {
  readonly pki: TestPki
  readonly port: number
  /**
   * Serves `host` (one of {@link SCRIPTED_HOSTS}, reached as if on port 443) with `handler`: conformance
   * fixtures pin `did:web:registry.example.com`-style identities that have no port.
   */
  serveHost(host: string, handler: ScriptedHost): void
  /** An outbound client that trusts the test CA and resolves `*.reg.test` to 127.0.0.1 (only). */
  outbound(): OutboundClient
  /** Adds registry `name` (`<name>.reg.test`) with `leaves` initial leaves. */
  addRegistry(name: string, leaves?: number): SimulatedRegistry
  readonly registries: Map<string, SimulatedRegistry>
  close(): Promise<void>
}

const DOMAIN = 'reg.test'
/** Port-less hosts the fixtures name; the simulator's client routes them to its own port. */
export const SCRIPTED_HOSTS = ['registry.example.com', 'witness.example.org', 'witness-2.example.org']
let pkiCache: TestPki | undefined

/** Starts the simulator on 127.0.0.1 (port 0). `now` is the registries' clock (the test's clock). */
export async function startRegistrySimulator(now: () => Date): Promise<RegistrySimulator> {
  pkiCache ??= createTestPki(
    { dnsNames: [`*.${DOMAIN}`, DOMAIN, ...SCRIPTED_HOSTS], ipAddresses: ['127.0.0.1'] },
    'ACDP witness test CA',
  )
  const pki = pkiCache
  const byHost = new Map<string, SimulatedRegistry>()
  const scripted = new Map<string, ScriptedHost>()
  const server: Server = createServer({ key: pki.keyPem, cert: pki.certPem }, (req, res) => {
    const host = (req.headers.host ?? '').toLowerCase()
    const script = scripted.get(host.replace(/:\d+$/, ''))
    if (script !== undefined) {
      const url = new URL(req.url ?? '/', `https://${host}`)
      const answer = script(url.pathname, url.searchParams)
      if (answer === undefined) return void res.writeHead(404).end()
      res
        .writeHead(answer.status, { 'content-type': answer.type ?? 'application/json' })
        .end(JSON.stringify(answer.body))
      return
    }
    const registry = byHost.get(host)
    if (registry === undefined) {
      res.writeHead(404).end()
      return
    }
    handle(registry, req, res)
  })
  server.keepAliveTimeout = 30_000
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const port = (server.address() as AddressInfo).port
  const clients: OutboundClient[] = []
  let serial = 0

  function handle(registry: SimulatedRegistry, req: IncomingMessage, res: ServerResponse): void {
    const url = new URL(req.url ?? '/', `https://${registry.authority}`)
    registry.hits.set(url.pathname, (registry.hits.get(url.pathname) ?? 0) + 1)
    const behaviour = registry.behaviour
    if (behaviour.kind === 'unreachable') return void res.writeHead(503).end()
    const json = (status: number, body: unknown, type = 'application/json'): void => {
      res.writeHead(status, { 'content-type': type }).end(JSON.stringify(body))
    }
    switch (url.pathname) {
      case '/.well-known/acdp.json':
        return json(200, {
          acdp_version: '0.5.0',
          registry_did: registry.registryDid,
          profiles:
            behaviour.kind === 'no_log_profile'
              ? ['acdp-registry-core', 'acdp-registry-receipts']
              : ['acdp-registry-core', 'acdp-registry-receipts', 'acdp-registry-transparency-log'],
        })
      case '/.well-known/did.json':
        return json(200, didDocument(registry), 'application/did+json')
      case '/log/checkpoint': {
        if (behaviour.kind === 'raw_checkpoint') return void res.writeHead(200).end(behaviour.body)
        const checkpoint = servedCheckpoint(registry)
        return registry.witnessSignatures.length > 0
          ? json(
              200,
              { log_checkpoint: checkpoint, witness_signatures: registry.witnessSignatures },
              'application/acdp+json',
            )
          : json(200, checkpoint, 'application/acdp+json')
      }
      case '/log/proof': {
        if (behaviour.kind === 'refuse_proofs') return json(404, { error: { code: 'not_found', message: 'no' } })
        if (behaviour.kind === 'raw_proof') return void res.writeHead(200).end(behaviour.body)
        const first = Number(url.searchParams.get('first'))
        const second = Number(url.searchParams.get('second'))
        const tree = registry.tree
        if (!(first > 0 && first <= second && second <= tree.size)) {
          return json(400, { error: { code: 'schema_violation', message: 'out of range' } })
        }
        return json(
          200,
          {
            log_id: registry.logId,
            first_tree_size: first,
            second_tree_size: second,
            consistency_path: tree.proveConsistency(first, second).map(formatSha256),
            log_checkpoint: sign(
              registry,
              registry.logId,
              second,
              behaviour.kind === 'forked_proof_checkpoint'
                ? rebuild(registry, second, second - 1).computeRoot()
                : tree.computeRoot(second),
              now(),
            ),
          },
          'application/acdp+json',
        )
      }
      default:
        return json(404, { error: { code: 'not_found', message: 'not found' } })
    }
  }

  function servedCheckpoint(registry: SimulatedRegistry): LogCheckpoint {
    const tree = registry.tree
    const at = now()
    switch (registry.behaviour.kind) {
      case 'split_view': {
        const fork = rebuild(registry, tree.size, tree.size - 1)
        return sign(registry, registry.logId, tree.size, fork.computeRoot(), at)
      }
      case 'regression':
        return sign(
          registry,
          registry.logId,
          registry.behaviour.treeSize,
          tree.computeRoot(registry.behaviour.treeSize),
          at,
        )
      case 'reset_to_empty':
        return sign(registry, registry.logId, 0, new MemoryMerkleTree().computeRoot(), at)
      case 'bad_signature': {
        const honest = sign(registry, registry.logId, tree.size, tree.computeRoot(), at)
        return { ...honest, root_hash: formatSha256(rebuild(registry, tree.size, 0).computeRoot()) }
      }
      case 'wrong_log_id': {
        const other = registryDidForAuthority(`evil.${DOMAIN}:${port}`)
        const logId = formatLogId(other, '1')
        return signCheckpoint(
          buildCheckpoint({ logId, treeSize: tree.size, rootHash: tree.computeRoot(), timestamp: at }),
          { algorithm: 'ed25519', keyId: `${other}#receipt-key-1`, privateKey: seedOf(registry) },
        )
      }
      case 'new_instance':
        return sign(registry, formatLogId(registry.registryDid, '2'), tree.size, tree.computeRoot(), at)
      case 'future_timestamp':
        return sign(registry, registry.logId, tree.size, tree.computeRoot(), new Date(at.getTime() + 3600_000))
      default:
        return sign(registry, registry.logId, tree.size, tree.computeRoot(), at)
    }
  }

  const seeds = new Map<SimulatedRegistry, Uint8Array>()
  const leafLog = new Map<SimulatedRegistry, string[]>()
  const seedOf = (registry: SimulatedRegistry) => seeds.get(registry) as Uint8Array

  function sign(registry: SimulatedRegistry, logId: string, treeSize: number, root: Uint8Array, at: Date) {
    return signCheckpoint(buildCheckpoint({ logId, treeSize, rootHash: root, timestamp: at }), {
      algorithm: 'ed25519',
      keyId: `${registry.registryDid}#receipt-key-1`,
      privateKey: seedOf(registry),
    })
  }

  /** The registry's leaves up to `size`, with leaf `changed` replaced (a rewritten history). */
  function rebuild(registry: SimulatedRegistry, size: number, changed: number): MemoryMerkleTree {
    const tree = new MemoryMerkleTree()
    const leaves = leafLog.get(registry) as string[]
    for (let i = 0; i < size; i++)
      tree.appendLeaf(encode(i === changed ? `${leaves[i]} (rewritten)` : (leaves[i] as string)))
    return tree
  }

  function didDocument(registry: SimulatedRegistry) {
    const keyId = `${registry.registryDid}#receipt-key-1`
    return {
      '@context': ['https://www.w3.org/ns/did/v1'],
      id: registry.registryDid,
      verificationMethod: [
        {
          id: keyId,
          type: 'Ed25519VerificationKey2020',
          controller: registry.registryDid,
          publicKeyMultibase: encodeMultibaseKey({
            algorithm: 'ed25519',
            publicKey: ed25519PublicKeyFromSeed(seedOf(registry)),
          }),
        },
      ],
      assertionMethod: [keyId],
    }
  }

  const registries = new Map<string, SimulatedRegistry>()
  return {
    pki,
    port,
    registries,
    serveHost(host, handler) {
      if (!SCRIPTED_HOSTS.includes(host)) throw new TypeError(`${host} is not in the test certificate`)
      scripted.set(host, handler)
    },
    outbound() {
      const client = createOutboundClient({
        allowCidrs: ['127.0.0.1/32'],
        trustedCaCertificates: [pki.caPem],
        lookup: async (hostname: string) => {
          if (hostname === DOMAIN || hostname.endsWith(`.${DOMAIN}`) || SCRIPTED_HOSTS.includes(hostname)) {
            return [{ address: '127.0.0.1', family: 4 }]
          }
          throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' })
        },
      })
      clients.push(client)
      // Port-less fixture hosts live on the simulator's port.
      const routed = (url: string | URL): URL => {
        const target = new URL(url)
        if (SCRIPTED_HOSTS.includes(target.hostname) && target.port === '') target.port = String(port)
        return target
      }
      return {
        request: (url, init) => client.request(routed(url), init),
        checkUrl: (url) => client.checkUrl(routed(url)),
        close: () => client.close(),
      }
    },
    addRegistry(name, leaves = 0) {
      serial += 1
      const host = `${name}.${DOMAIN}`
      const authority = `${host}:${port}`
      const registryDid = registryDidForAuthority(authority)
      const seed = new Uint8Array(32)
      seed.fill(serial % 251)
      seed[0] = serial & 0xff
      seed[1] = (serial >> 8) & 0xff
      const registry: SimulatedRegistry = {
        authority,
        baseUrl: `https://${authority}`,
        registryDid,
        logId: formatLogId(registryDid, '1'),
        tree: new MemoryMerkleTree(),
        behaviour: { kind: 'honest' },
        witnessSignatures: [],
        hits: new Map(),
        append(count) {
          const log = leafLog.get(registry) as string[]
          for (let i = 0; i < count; i++) {
            const leaf = `${name} leaf ${log.length}`
            log.push(leaf)
            registry.tree.appendLeaf(encode(leaf))
          }
        },
        rewriteLeaf(index) {
          const log = leafLog.get(registry) as string[]
          log[index] = `${log[index]} (rewritten)`
          registry.tree = rebuild(registry, log.length, -1)
        },
        signedCheckpoint() {
          return sign(registry, registry.logId, registry.tree.size, registry.tree.computeRoot(), now())
        },
      }
      seeds.set(registry, seed)
      leafLog.set(registry, [])
      registry.append(leaves)
      byHost.set(authority, registry)
      registries.set(name, registry)
      return registry
    },
    async close() {
      await Promise.all(clients.map((client) => client.close()))
      server.closeAllConnections()
      server.close()
      await once(server, 'close').catch(() => undefined)
    },
  }
}

function encode(text: string): Uint8Array {
  return new TextEncoder().encode(text)
}
