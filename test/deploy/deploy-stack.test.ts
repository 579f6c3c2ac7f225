/**
 * The deployment of docs/deploy.md, started as written: deploy/generate-secrets.sh into a temporary directory,
 * deploy/registry.toml and deploy/control-plane.env through each service's real config loader with the generated
 * secrets, on PostgreSQL (skipped with a line when ACDP_TEST_DATABASE_URL is unset), each service behind a
 * TLS-terminating reverse proxy (a TLS terminator with a test-CA certificate for its public host), the registry
 * enrolled with `acdp registries enroll`. Then: a publish reaches the control plane's run, `acdp run complete`
 * ends the run, the control plane witnesses and cosigns the registry's log, the registry serves the cosignature,
 * and `acdp get --verify` verifies receipt, inclusion proof and cosignature.
 *
 * What differs from a real host, and only that:
 *   - paths: the secrets directory (/etc/acdp → the temporary directory, via the receipt key path), the console
 *     build (/opt/acdp → this checkout);
 *   - ports: both services listen on 127.0.0.1:0 instead of 8080 / 3001, the proxies on their own loopback ports;
 *   - database URLs: each service gets a fresh database on the test server;
 *   - DNS and the CA: registry.example.com and control-plane.example.com resolve to the proxies on 127.0.0.1
 *     inside the services' (and the consumer's) outbound client, which trusts the test CA. That client is
 *     otherwise the production one: https only, loopback opened for these two names only.
 * The test talks plain http to the two listeners (as a client on the proxy's host would).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Server as TlsServer } from 'node:tls'
import { promisify } from 'node:util'
import { execFile } from 'node:child_process'
import type { OutboundClient } from '@acdp/protocol'
import { testDatabaseUrl } from '@acdp/storage'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli } from '../../packages/cli/src/cli.js'
import { captureIo } from '../../packages/cli/src/test-io.js'
import { loadConfig as loadControlPlaneConfig } from '../../packages/control-plane/src/core/config.js'
import { type RunningControlPlane, startControlPlane } from '../../packages/control-plane/src/start.js'
import { createTestPki, type TestPki } from '../../packages/protocol/test/support/test-ca.js'
import { loadConfig as loadRegistryConfig } from '../../packages/registry/src/core/config.js'
import { type RunningRegistry, startRegistry } from '../../packages/registry/src/start.js'
import { type CrashBackend, openCrashBackend } from '../crash/backends.js'
import { REPOSITORY_ROOT } from '../crash/service-process.js'
import { eventually as waitFor } from '../support/eventually.js'
import { portOf, routedOutbound, startTlsTerminator } from '../support/loopback-tls.js'
import { parseEnvironmentFile } from './deploy-files.js'

const eventually = <T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number): Promise<T> =>
  waitFor(what, probe, { timeoutMs })
const run = promisify(execFile)
const DEPLOY = join(REPOSITORY_ROOT, 'deploy')
const REGISTRY_HOST = 'registry.example.com'
const CONTROL_PLANE_HOST = 'control-plane.example.com'
const WITNESS_DID = `did:web:${CONTROL_PLANE_HOST}`
const RUN_ID = 'deploy-walkthrough-1'
/** The example's witness interval and the registry's cosignature poll are 10 s each: two rounds and slack. */
const WITNESS_WAIT_MS = 45_000

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are untyped JSON in tests
type Json = any

const postgres = testDatabaseUrl() !== undefined
if (!postgres) console.warn('[deploy-stack] ACDP_TEST_DATABASE_URL unset: the PostgreSQL deployment is not started')

describe.runIf(postgres)(
  'the deploy/ examples as one deployment on PostgreSQL behind TLS',
  { timeout: 120_000 },
  () => {
    const work = mkdtempSync(join(tmpdir(), 'acdp-deploy-stack-'))
    const secretsDir = join(work, 'etc-acdp')
    const ports = new Map<string, number>()
    const proxies: TlsServer[] = []
    const outbounds: OutboundClient[] = []
    const backends: CrashBackend[] = []
    let pki: TestPki
    let controlPlane: RunningControlPlane
    let registry: RunningRegistry
    let registryUrl: string
    let apiKey: string
    let adminKey: string
    let enrollOutput: string
    let ctxId: string

    const secrets = (name: string) => parseEnvironmentFile(readFileSync(join(secretsDir, name), 'utf8'))
    const example = (name: string) => parseEnvironmentFile(readFileSync(join(DEPLOY, name), 'utf8'))
    const outbound = () => {
      const client = routedOutbound(pki, ports)
      outbounds.push(client)
      return client
    }
    const cli = async (args: string[], env: Record<string, string> = {}) => {
      const io = captureIo({ cwd: work, env, outbound: outbounds[0] as OutboundClient })
      const code = await runCli(args, io)
      return { code, out: io.out(), err: io.err() }
    }
    /** `acdp publish` of a fresh body titled `title` with the walkthrough's key; returns the ctx_id. */
    const publish = async (title: string, extra: string[] = []): Promise<string> => {
      const file = `body-${title.replaceAll(' ', '-')}.json`
      writeFileSync(join(work, file), JSON.stringify({ title, type: 'analysis' }))
      const published = await cli([
        'publish',
        file,
        '--key',
        'producer.json',
        '--registry',
        registryUrl,
        '--json',
        ...extra,
      ])
      expect(published.code).toBe(0)
      return JSON.parse(published.out).ctx_id
    }
    const fromControlPlane = async (path: string): Promise<Json> => {
      const response = await fetch(`${controlPlane.url}${path}`, { headers: { authorization: `Bearer ${apiKey}` } })
      expect(response.status).toBe(200)
      return response.json()
    }

    /** Starts the registry from `tomlPath` as the unit does, behind its proxy (a restart replaces both). */
    async function startRegistryFrom(tomlPath: string, env: Record<string, string>) {
      const registryConfig = loadRegistryConfig({
        path: tomlPath,
        env: {
          NODE_ENV: 'production',
          ...secrets('registry.secrets.env'),
          ACDP_REGISTRY_STORAGE__POSTGRES_URL: (backends[0] as CrashBackend).postgresUrl,
          ACDP_REGISTRY_REGISTRY__PORT: '0',
          ACDP_REGISTRY_REGISTRY__LOG_LEVEL: 'silent',
          ACDP_REGISTRY_RECEIPT__SIGNING_KEY_PATH: join(secretsDir, 'keys', 'registry-receipt.seed'),
          ...env,
        },
      })
      registry = await startRegistry(registryConfig, { outbound: outbound() })
      await registry.app.listen({ host: '127.0.0.1', port: 0 })
      registryUrl = `http://127.0.0.1:${portOf(registry.app.server)}`
      const registryProxy = await startTlsTerminator(pki, portOf(registry.app.server))
      proxies.push(registryProxy)
      ports.set(REGISTRY_HOST, portOf(registryProxy))
    }

    beforeAll(async () => {
      await run('bash', [join(DEPLOY, 'generate-secrets.sh'), secretsDir])
      pki = createTestPki(
        { dnsNames: [REGISTRY_HOST, CONTROL_PLANE_HOST], ipAddresses: ['127.0.0.1'] },
        'ACDP deploy CA',
      )
      outbound() // the consumer's (acdp get --verify)
      const [registryDb, controlPlaneDb] = await Promise.all([
        openCrashBackend('postgres', 'deploy-stack-registry'),
        openCrashBackend('postgres', 'deploy-stack-cp'),
      ])
      backends.push(registryDb as CrashBackend, controlPlaneDb as CrashBackend)

      // The control plane first: the registry's webhook and witness poll name it.
      const controlPlaneSecrets = secrets('control-plane.secrets.env')
      apiKey = controlPlaneSecrets.AUTH_API_KEYS as string
      adminKey = controlPlaneSecrets.AUTH_ADMIN_API_KEYS as string
      const controlPlaneConfig = loadControlPlaneConfig({
        ...example('control-plane.env'),
        ...controlPlaneSecrets,
        DATABASE_URL: (controlPlaneDb as CrashBackend).postgresUrl,
        PORT: '0',
        LOG_LEVEL: 'silent',
        SHUTDOWN_DRAIN_DELAY_MS: '0',
        CONSOLE_ASSETS_DIR: join(REPOSITORY_ROOT, 'packages', 'console', 'dist'),
      })
      expect(controlPlaneConfig.isProduction).toBe(true)
      controlPlane = await startControlPlane(controlPlaneConfig, { outbound: outbound() })
      const controlPlaneProxy = await startTlsTerminator(pki, portOf(controlPlane.app.server))
      proxies.push(controlPlaneProxy)
      ports.set(CONTROL_PLANE_HOST, portOf(controlPlaneProxy))

      // docs/deploy.md "Enroll the registry": the secret file generate-secrets.sh wrote for it.
      const enrolled = await cli(
        [
          'registries',
          'enroll',
          REGISTRY_HOST,
          '--secret-file',
          join(secretsDir, 'keys', 'registry-webhook.secret'),
          '--public-url',
          `https://${CONTROL_PLANE_HOST}`,
          '--control-plane',
          controlPlane.url,
        ],
        { ACDP_API_KEY: adminKey },
      )
      expect(enrolled.err).toBe('')
      expect(enrolled.code).toBe(0)
      enrollOutput = enrolled.out

      await startRegistryFrom(join(DEPLOY, 'registry.toml'), {})
    })

    afterAll(async () => {
      await registry?.close()
      await controlPlane?.close()
      for (const proxy of proxies) proxy.close()
      for (const client of outbounds) await client.close()
      for (const backend of backends) await backend.dispose()
      rmSync(work, { recursive: true, force: true })
    })

    it('acdp registries enroll prints the webhook and [[witnesses]] configuration deploy/registry.toml holds', () => {
      const toml = readFileSync(join(DEPLOY, 'registry.toml'), 'utf8')
      const webhookUrl = /^\[webhook\][^[]*?^url = "([^"]+)"/m.exec(toml)?.[1]
      const witness = /^\[\[witnesses\]\]\ndid = "([^"]+)"\nurl = "([^"]+)"/m.exec(toml)
      expect(webhookUrl).toBe(`https://${CONTROL_PLANE_HOST}/ingest/acdp`)
      expect(enrollOutput).toContain(`url = "${webhookUrl}"`)
      expect(witness?.[1]).toBe(WITNESS_DID)
      expect(enrollOutput).toContain(`[[witnesses]]\ndid = "${witness?.[1]}"\nurl = "${witness?.[2]}"`)
    })

    it('the registry serves its DID document through the proxy at https://<authority>/.well-known/did.json', async () => {
      const response = await (outbounds[0] as OutboundClient).request(`https://${REGISTRY_HOST}/.well-known/did.json`)
      expect(response.status).toBe(200)
      const document = JSON.parse(new TextDecoder().decode(response.body))
      expect(document.id).toBe(`did:web:${REGISTRY_HOST}`)
    })

    it('a publish made in a run reaches that run on the control plane; acdp run complete ends it', async () => {
      const signing = [
        '--authority',
        REGISTRY_HOST,
        '--secret-file',
        join(secretsDir, 'keys', 'registry-webhook.secret'),
        '--control-plane',
        controlPlane.url,
      ]
      expect((await cli(['run', 'start', RUN_ID, '--scenario', 'deploy-walkthrough', ...signing])).code).toBe(0)
      expect((await cli(['keygen', '--out', 'producer.json'])).code).toBe(0)
      ctxId = await publish('deployed', ['--run-id', RUN_ID])
      const inRun = await eventually(
        'the publish in the run',
        async () => {
          const run = await fromControlPlane(`/runs/${RUN_ID}`)
          return run.contextsCount === 1 ? run : undefined
        },
        15_000,
      )
      expect(inRun).toMatchObject({ runId: RUN_ID, status: 'running' })
      const events = await fromControlPlane(`/runs/${RUN_ID}/events`)
      expect(JSON.stringify(events.data)).toContain(ctxId)
      expect((await cli(['run', 'complete', RUN_ID, ...signing])).code).toBe(0)
      expect(await fromControlPlane(`/runs/${RUN_ID}`)).toMatchObject({ status: 'completed' })
    })

    it('the control plane witnesses and cosigns the log; acdp get --verify verifies receipt, inclusion and cosignature', async () => {
      await eventually(
        'a cosigned checkpoint served by the registry',
        async () => {
          const checkpoint = (await (await fetch(`${registryUrl}/log/checkpoint`)).json()) as Json
          return checkpoint.witness_signatures?.length > 0 && checkpoint.log_checkpoint.tree_size >= 1
            ? true
            : undefined
        },
        WITNESS_WAIT_MS,
      )
      const { code, out } = await cli([
        'get',
        ctxId,
        '--verify',
        '--json',
        '--registry',
        registryUrl,
        '--trust-witness',
        WITNESS_DID,
        '--require',
        'receipt,log,witness',
      ])
      // --require turns any missing evidence into a failure (exit 1); the stages also say what verified.
      const { verification } = JSON.parse(out)
      const stage = (name: string) => verification.stages.find((s: Json) => s.name === name)
      for (const name of ['registry_receipt', 'log_inclusion', 'witness_signatures']) {
        expect(stage(name)).toMatchObject({ state: 'verified' })
      }
      const check = (name: string) => verification.checks.find((c: Json) => c.name === name)
      expect(check('registry_receipt')).toMatchObject({ ok: true })
      expect(check('registry_receipt').detail).toContain(`did:web:${REGISTRY_HOST}`)
      expect(check('log_inclusion')).toMatchObject({ ok: true })
      expect(check('log_inclusion').detail).toContain(`did:web:${REGISTRY_HOST}/log/1`)
      expect(check('witness_signatures')).toMatchObject({ ok: true })
      expect(check('witness_signatures').detail).toMatch(new RegExp(`^[1-9][0-9]*-witnessed: .*${WITNESS_DID}`))
      expect(verification.ok).toBe(true)
      expect(code).toBe(0)
    })

    it('rotating the receipt key as docs/deploy.md shows: old receipts still verify, new ones carry the new key', async () => {
      const keys = join(secretsDir, 'keys')
      await run('bash', ['-c', `umask 077 && openssl rand -base64 32 > '${keys}/registry-receipt-2.seed'`])
      // The command of docs/deploy.md "Rotating the receipt key", step 1.
      const { stdout } = await run('bash', [
        '-c',
        `(printf '302e020100300506032b657004220420' | xxd -r -p; base64 -d '${keys}/registry-receipt.seed') |` +
          ' openssl pkey -inform DER -pubout -outform DER | tail -c 32 | base64',
      ])
      const didDocument = JSON.parse(
        new TextDecoder().decode(
          (await (outbounds[0] as OutboundClient).request(`https://${REGISTRY_HOST}/.well-known/did.json`)).body,
        ),
      )
      const current = didDocument.verificationMethod.find((m: Json) => m.id.endsWith('#receipt-key-1'))
      expect(Buffer.from(stdout.trim(), 'base64').toString('base64url')).toBe(current.publicKeyJwk.x)
      // Step 2: registry.toml with the new [receipt] key and the old one retired.
      const rotated = readFileSync(join(DEPLOY, 'registry.toml'), 'utf8')
        .replace(
          'signing_key_path = "/etc/acdp/keys/registry-receipt.seed"',
          'signing_key_path = "/etc/acdp/keys/registry-receipt-2.seed"',
        )
        .replace('key_id_fragment = "receipt-key-1"', 'key_id_fragment = "receipt-key-2"')
        .concat(`\n[[receipt.retired_keys]]\npublic_key_b64 = "${stdout.trim()}"\nkey_id_fragment = "receipt-key-1"\n`)
      expect(rotated).toContain('key_id_fragment = "receipt-key-2"')
      const rotatedPath = join(work, 'registry-rotated.toml')
      writeFileSync(rotatedPath, rotated)
      // Step 3: restart.
      await registry.close()
      await startRegistryFrom(rotatedPath, {
        ACDP_REGISTRY_RECEIPT__SIGNING_KEY_PATH: join(keys, 'registry-receipt-2.seed'),
      })
      const verify = async (id: string) => {
        const result = await cli(['get', id, '--verify', '--json', '--registry', registryUrl])
        return { code: result.code, document: JSON.parse(result.out) }
      }
      const old = await verify(ctxId)
      expect(old.document.verification.checks.find((c: Json) => c.name === 'registry_receipt')).toMatchObject({
        ok: true,
      })
      expect(JSON.stringify(old.document.context.registry_receipt)).toContain('#receipt-key-1')
      expect(old.code).toBe(0)
      const fresh = await verify(await publish('after rotation'))
      expect(fresh.document.verification.checks.find((c: Json) => c.name === 'registry_receipt')).toMatchObject({
        ok: true,
      })
      expect(JSON.stringify(fresh.document.context.registry_receipt)).toContain('#receipt-key-2')
      expect(fresh.code).toBe(0)
    })

    it('the control plane serves the console', async () => {
      const response = await fetch(`${controlPlane.url}/console/`)
      expect(response.status).toBe(200)
      expect(await response.text()).toContain('<html')
    })
  },
)
