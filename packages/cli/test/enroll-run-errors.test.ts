/**
 * `acdp registries enroll`, `acdp run start|complete` and the CLI's error reporting, against a real control
 * plane (enrollment required, timestamped signatures required, cosigning on) and a real registry, over loopback
 * sockets. The control plane runs on SQLite and, when ACDP_TEST_DATABASE_URL is set, PostgreSQL.
 */
import { generateKeyPairSync } from 'node:crypto'
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ContextType } from '@acdp/protocol'
import { testDatabaseTargets } from '@acdp/storage'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadConfig } from '../../control-plane/src/core/config.js'
import { type RunningControlPlane, startControlPlane } from '../../control-plane/src/start.js'
import { resolveConfig } from '../../registry/src/core/config.js'
import { type RunningRegistry, startRegistry } from '../../registry/src/start.js'
import { runCli } from '../src/cli.js'
import { captureIo } from '../src/test-io.js'

const ADMIN_KEY = 'enroll-test-admin-key-0123456789'
const USER_KEY = 'enroll-test-user-key-0123456789a'
const CP_HOST = 'control-plane.enroll.test'
const WITNESS_DID = `did:web:${CP_HOST}`

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies are untyped JSON in tests
type Json = any

const dirs: string[] = []
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'acdp-cli-enroll-'))
  dirs.push(dir)
  return dir
}
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

/** A test control plane on SQLite in `dir` (the database itself may be injected), plus `env`. */
function controlPlaneConfig(dir: string, env: Record<string, string>) {
  return loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'silent',
    HOST: '127.0.0.1',
    PORT: '0',
    SQLITE_PATH: join(dir, 'cp.db'),
    AUTH_API_KEYS: USER_KEY,
    SECRETS_ENCRYPTION_KEY: Buffer.alloc(32, 3).toString('base64'),
    WEBHOOK_SECRET: 'enroll-test-global-webhook-secret',
    ...env,
  })
}

async function cli(cwd: string, args: string[], env: Record<string, string> = {}) {
  const io = captureIo({ cwd, env })
  const code = await runCli(args, io)
  return { code, out: io.out(), err: io.err() }
}

describe.each(testDatabaseTargets())('registries enroll and run start/complete on $name', (target) => {
  let plane: RunningControlPlane
  let cwd: string
  const admin = { ACDP_API_KEY: ADMIN_KEY }
  const asUser = { authorization: `Bearer ${USER_KEY}` }
  /** The flags that sign a run notice as the enrolled registry, with the secret in `secretFile`. */
  const signedBy = (secretFile: string) => [
    '--authority',
    'registry.enroll.test',
    '--secret-file',
    secretFile,
    '--control-plane',
    plane.url,
  ]
  const getJson = async (path: string): Promise<{ status: number; body: Json }> => {
    const response = await fetch(`${plane.url}${path}`, { headers: asUser })
    return { status: response.status, body: await response.json() }
  }

  beforeAll(async () => {
    cwd = tempDir()
    const config = controlPlaneConfig(cwd, {
      AUTH_ADMIN_API_KEYS: ADMIN_KEY,
      INGEST_REQUIRE_ENROLLMENT: 'true',
      INGEST_REQUIRE_TIMESTAMPED_SIGNATURE: 'true',
      LOG_WITNESS_ENABLED: 'true',
      LOG_WITNESS_SCHEDULE: 'false',
      WITNESS_COSIGNING_ENABLED: 'true',
      WITNESS_ID: WITNESS_DID,
      PUBLIC_HOST: CP_HOST,
      WITNESS_SIGNING_PRIVATE_KEY_PEM: generateKeyPairSync('ed25519')
        .privateKey.export({ format: 'pem', type: 'pkcs8' })
        .toString(),
    })
    plane = await startControlPlane(config, { database: await target.open() })
  })
  afterAll(async () => {
    await plane?.close()
  })

  it('enroll generates the secret file (0600), enrolls the registry and prints the webhook and witness config', async () => {
    const { code, out, err } = await cli(
      cwd,
      [
        'registries',
        'enroll',
        'registry.enroll.test',
        '--secret-file',
        'webhook-secret',
        '--public-url',
        `https://${CP_HOST}`,
        '--control-plane',
        plane.url,
      ],
      admin,
    )
    expect(err).toBe('')
    expect(code).toBe(0)
    expect(statSync(join(cwd, 'webhook-secret')).mode & 0o777).toBe(0o600)
    expect(out).toContain('webhook secret generated into')
    expect(out).toContain(`url = "https://${CP_HOST}/ingest/acdp"`)
    expect(out).toMatch(
      new RegExp(`\\[\\[witnesses\\]\\]\\ndid = "${WITNESS_DID}"\\nurl = "https://${CP_HOST}/log/witness"`),
    )
    const { body } = await getJson('/registries/enrollments')
    expect(body.data.find((e: Json) => e.authority === 'registry.enroll.test')).toMatchObject({
      baseUrl: 'https://registry.enroll.test',
      registryDid: 'did:web:registry.enroll.test',
      hasWebhookSecret: true,
      enabled: true,
    })
  })

  it('enroll --witness off enrolls no base URL, so the witness has nothing to poll, and prints no [[witnesses]]', async () => {
    writeFileSync(join(cwd, 'given-secret'), 'a-given-secret-of-enough-length\n', { mode: 0o600 })
    const { code, out } = await cli(
      cwd,
      ['registries', 'enroll', 'quiet.enroll.test', '--secret-file', 'given-secret', '--witness', 'off', '--json'],
      { ...admin, ACDP_CONTROL_PLANE_URL: plane.url },
    )
    expect(code).toBe(0)
    const document = JSON.parse(out)
    expect(document).toMatchObject({ secret_generated: false, registry_config: { witnesses: [] } })
    expect(document.enrollment).toMatchObject({ authority: 'quiet.enroll.test', baseUrl: null })
  })

  it('enroll without an API key names the missing key; under --json the error is JSON on stdout', async () => {
    const args = [
      'registries',
      'enroll',
      'x.enroll.test',
      '--secret-file',
      'given-secret',
      '--control-plane',
      plane.url,
    ]
    const text = await cli(cwd, args)
    expect(text.code).toBe(1)
    expect(text.err).toMatch(/^acdp registries: missing_api_key: missing API key: .*set ACDP_API_KEY/)
    const json = await cli(cwd, [...args, '--json'])
    expect(json.code).toBe(1)
    expect(json.err).toBe('')
    expect(JSON.parse(json.out)).toMatchObject({ error: { code: 'missing_api_key', http_status: 401, exit_code: 1 } })
  })

  it('run start and run complete move a run from running to its outcome, signed with the enrollment’s secret', async () => {
    const signing = signedBy('webhook-secret')
    const started = await cli(cwd, ['run', 'start', 'run-cli-1', '--scenario', 'nightly', ...signing])
    expect(started).toMatchObject({ code: 0, out: 'run run-cli-1: started\n' })
    expect((await getJson('/runs/run-cli-1')).body).toMatchObject({ runId: 'run-cli-1', status: 'running' })
    writeFileSync(join(cwd, 'result.json'), '{"score":3}')
    const completed = await cli(cwd, [
      'run',
      'complete',
      'run-cli-1',
      '--status',
      'failed',
      '--result-file',
      'result.json',
      ...signing,
    ])
    expect(completed).toMatchObject({ code: 0, out: 'run run-cli-1: failed\n' })
    const run = (await getJson('/runs/run-cli-1')).body
    expect(run).toMatchObject({ status: 'failed' })
    expect(run.completedAt).toEqual(expect.any(String))
  })

  it('run complete signed with another secret is refused by the control plane and leaves the run running', async () => {
    const signing = signedBy('webhook-secret')
    expect((await cli(cwd, ['run', 'start', 'run-cli-2', '--scenario', 'nightly', ...signing])).code).toBe(0)
    const refused = await cli(cwd, ['run', 'complete', 'run-cli-2', ...signedBy('given-secret')])
    expect(refused.code).toBe(1)
    expect(refused.err).toMatch(/answered 401/)
    expect((await getJson('/runs/run-cli-2')).body).toMatchObject({ status: 'running' })
  })

  it('run start without a signing secret is a usage error naming ACDP_RUN_SECRET', async () => {
    const { code, err } = await cli(tempDir(), ['run', 'start', 'r', '--scenario', 's', '--control-plane', plane.url])
    expect(code).toBe(2)
    expect(err).toContain('ACDP_RUN_SECRET')
  })
})

describe('acdp publish errors', () => {
  let registry: RunningRegistry
  let registryUrl: string
  let plane: RunningControlPlane
  let cwd: string

  beforeAll(async () => {
    cwd = tempDir()
    registry = await startRegistry(
      resolveConfig(
        {
          registry: { authority: 'registry.publish.test', log_level: 'silent' },
          storage: { backend: 'sqlite', sqlite_path: join(cwd, 'registry.db') },
        },
        { nodeEnv: 'test' },
      ),
    )
    await registry.app.listen({ host: '127.0.0.1', port: 0 })
    registryUrl = `http://127.0.0.1:${(registry.app.server.address() as AddressInfo).port}`
    plane = await startControlPlane(controlPlaneConfig(cwd, {}))
    expect((await cli(cwd, ['keygen', '--out', 'key.json'])).code).toBe(0)
  })
  afterAll(async () => {
    await plane?.close()
    await registry?.close()
  })

  it('prints the registry’s field errors (path and rule) under the one-line error', async () => {
    writeFileSync(join(cwd, 'bad-type.json'), JSON.stringify({ title: 'x', type: 'report' }))
    const { code, err } = await cli(cwd, ['publish', 'bad-type.json', '--key', 'key.json', '--registry', registryUrl])
    expect(code).toBe(1)
    const [summary, ...fields] = err.trimEnd().split('\n')
    expect(summary).toMatch(/^acdp publish: schema_violation: .*\(HTTP 400\)$/)
    expect(fields.some((line) => /^ {2}\/type: \S/.test(line))).toBe(true)
  })

  it('under --json prints the failure, field errors included, as JSON on stdout', async () => {
    const { code, out, err } = await cli(cwd, [
      'publish',
      'bad-type.json',
      '--key',
      'key.json',
      '--registry',
      registryUrl,
      '--json',
    ])
    expect(code).toBe(1)
    expect(err).toBe('')
    const { error } = JSON.parse(out)
    expect(error).toMatchObject({ code: 'schema_violation', http_status: 400, exit_code: 1 })
    expect(error.errors).toEqual(expect.arrayContaining([expect.objectContaining({ path: '/type' })]))
  })

  it('names the control plane given as --registry', async () => {
    writeFileSync(join(cwd, 'good.json'), JSON.stringify({ title: 'x', type: 'analysis' }))
    const { code, err } = await cli(cwd, ['publish', 'good.json', '--key', 'key.json', '--registry', plane.url])
    expect(code).toBe(1)
    expect(err).toContain(`acdp publish: wrong_service: ${plane.url} answered like an ACDP control plane`)
    // The same body reaches a registry, so the body was not the problem.
    expect((await cli(cwd, ['publish', 'good.json', '--key', 'key.json', '--registry', registryUrl])).code).toBe(0)
  })

  it('names the control plane given as the registry in every registry-reading command, text and --json', async () => {
    // A context of the real registry, so only the URL is wrong.
    writeFileSync(join(cwd, 'named.json'), JSON.stringify({ title: 'named', type: 'analysis' }))
    const published = await cli(cwd, ['publish', 'named.json', '--key', 'key.json', '--registry', registryUrl])
    const ctxId = published.out.split('\n')[0] as string
    expect(ctxId).toMatch(/^acdp:\/\//)
    const expected = `wrong_service: ${plane.url} answered like an ACDP control plane, not a registry`
    const commands: Array<[string, string[]]> = [
      ['get', ['get', ctxId, '--registry', plane.url]],
      ['get', ['get', ctxId, '--verify', '--registry', plane.url]],
      ['trace', ['trace', ctxId, '--registry', plane.url]],
      ['log', ['log', 'audit', plane.url, '--count', '1']],
    ]
    for (const [name, args] of commands) {
      const text = await cli(cwd, args)
      expect({ args, code: text.code, err: text.err }).toEqual({
        args,
        code: 1,
        err: expect.stringContaining(`acdp ${name}: ${expected}`),
      })
      const json = await cli(cwd, [...args, '--json'])
      expect(json.code).toBe(1)
      expect(JSON.parse(json.out).error).toMatchObject({ code: 'wrong_service', exit_code: 1 })
    }
    // The same commands against the registry are not refused.
    expect((await cli(cwd, ['get', ctxId, '--registry', registryUrl])).code).toBe(0)
  })

  it('publish --help lists every type value of the schema', async () => {
    const { out } = await cli(cwd, ['publish', '--help'])
    const members = (ContextType as unknown as { anyOf: Array<{ const?: string; pattern?: string }> }).anyOf
    expect(members.length).toBeGreaterThan(1)
    for (const member of members) expect(out).toContain(member.const ?? member.pattern ?? '(missing)')
  })
})
