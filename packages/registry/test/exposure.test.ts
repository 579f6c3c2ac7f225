/**
 * What the registry exposes on a real socket, started through the `acdp-registry` entry point: the public-bind
 * rule (product spec "Authentication" 8), inbound TLS on a public bind, the metrics bearer, and the pinned-key
 * reload wired to the configuration file.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { request as httpsRequest } from 'node:https'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { type CliProcess, runRegistryCli } from '../src/cli.js'
import { didKeyProducer } from './support/registry-harness.js'

let dir = ''
const stops: Array<() => Promise<void>> = []

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'acdp-exposure-'))
  // A throwaway self-signed certificate for 127.0.0.1 (test data, generated per run).
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-days',
      '1',
      '-subj',
      '/CN=127.0.0.1',
      '-addext',
      'subjectAltName=IP:127.0.0.1',
      '-keyout',
      join(dir, 'key.pem'),
      '-out',
      join(dir, 'cert.pem'),
    ],
    { stdio: 'ignore' },
  )
})

afterEach(async () => {
  for (const stop of stops.splice(0)) await stop()
})

afterAll(() => rmSync(dir, { recursive: true, force: true }))

let counter = 0

/** Writes `toml` (after the [registry] basics) and runs the CLI on it; returns the run and the captured output. */
async function startCli(registryExtra: string, rest = '') {
  counter += 1
  const file = join(dir, `registry-${counter}.toml`)
  const dbPath = join(dir, `registry-${counter}.db`)
  writeFileSync(
    file,
    `[registry]\nauthority = "registry.example.com"\nport = 0\nlog_level = "silent"\n${registryExtra}\n` +
      `[storage]\nsqlite_path = "${dbPath}"\n${rest}`,
  )
  const out = { stderr: '', exits: [] as number[], stop: undefined as ((signal: string) => void) | undefined }
  const proc: CliProcess = {
    env: {},
    stdout: () => {},
    stderr: (t) => {
      out.stderr += t
    },
    exit: (code) => {
      out.exits.push(code)
    },
    onStopSignal: (handler) => {
      out.stop = handler
    },
  }
  const run = await runRegistryCli(['--config', file], proc)
  if (run) {
    stops.push(async () => {
      out.stop?.('SIGTERM')
      await run.stopped
    })
  }
  return { run, out, file, dbPath }
}

function addressOf(run: NonNullable<Awaited<ReturnType<typeof startCli>>['run']>) {
  return run.registry.app.server.address() as { address: string; port: number }
}

describe('public-bind rule', () => {
  it('refuses a non-loopback bind with neither TLS nor auth: exit 2, one line, nothing opened', async () => {
    const { run, out, dbPath } = await startCli('bind = "0.0.0.0"')
    expect(run).toBeUndefined()
    expect(out.exits).toEqual([2])
    expect(out.stderr).toMatch(/^acdp-registry: refusing to start: registry\.bind "0\.0\.0\.0" is not loopback/)
    expect(out.stderr).toContain('allow_public_bind')
    expect(existsSync(dbPath)).toBe(false)
  })

  it('binds every interface when the operator opts in, and serves on them', async () => {
    const { run } = await startCli('bind = "0.0.0.0"\nallow_public_bind = true')
    if (!run) throw new Error('the registry did not start')
    const { address, port } = addressOf(run)
    expect(address).toBe('0.0.0.0')
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200)
  })

  it('accepts a public bind with auth on', async () => {
    const secret = Buffer.alloc(32, 9).toString('base64')
    const { run } = await startCli('bind = "0.0.0.0"', `[auth]\nenabled = true\njwt_secret = "${secret}"\n`)
    if (!run) throw new Error('the registry did not start')
    const { port } = addressOf(run)
    const caps = (await (await fetch(`http://127.0.0.1:${port}/.well-known/acdp.json`)).json()) as Record<
      string,
      unknown
    >
    expect(caps.read_authentication_methods).toEqual(['bearer_jwt'])
  })

  it('accepts a public bind with TLS on, serving HTTPS only', async () => {
    const { run } = await startCli(
      `bind = "0.0.0.0"\n[registry.tls]\nenabled = true\ncert_path = "${join(dir, 'cert.pem')}"\n` +
        `key_path = "${join(dir, 'key.pem')}"\n`,
    )
    if (!run) throw new Error('the registry did not start')
    const { port } = addressOf(run)
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const req = httpsRequest(
        { host: '127.0.0.1', port, path: '/healthz', ca: readFileSync(join(dir, 'cert.pem')) },
        (res) => {
          res.resume()
          resolve(res.statusCode)
        },
      )
      req.on('error', reject)
      req.end()
    })
    expect(status).toBe(200)
    // Plain HTTP on the TLS port gets no HTTP answer.
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow()
  })
})

describe('metrics bearer on a real socket', () => {
  it('answers 401 with WWW-Authenticate without the token and serves the exposition with it', async () => {
    const { run } = await startCli('', `[metrics]\nenabled = true\nbearer_token = "scrape-token-0123456789"\n`)
    if (!run) throw new Error('the registry did not start')
    const { port } = addressOf(run)
    const url = `http://127.0.0.1:${port}/metrics`
    for (const headers of [{}, { authorization: 'Bearer wrong' }, { authorization: 'Basic scrape-token-0123456789' }]) {
      const res = await fetch(url, { headers })
      expect(res.status).toBe(401)
      expect(res.headers.get('www-authenticate')).toBe('Bearer realm="metrics"')
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('not_authorized')
    }
    const ok = await fetch(url, { headers: { authorization: 'Bearer scrape-token-0123456789' } })
    expect(ok.status).toBe(200)
    expect(ok.headers.get('content-type')).toContain('text/plain')
    expect(await ok.text()).toContain('acdp_registry_request_total')
  })

  it('serves /metrics without a token when none is set, and not at all when metrics are off', async () => {
    const open = await startCli('', `[metrics]\nenabled = true\n`)
    if (!open.run) throw new Error('the registry did not start')
    expect((await fetch(`http://127.0.0.1:${addressOf(open.run).port}/metrics`)).status).toBe(200)
    const off = await startCli('')
    if (!off.run) throw new Error('the registry did not start')
    expect((await fetch(`http://127.0.0.1:${addressOf(off.run).port}/metrics`)).status).toBe(404)
  })
})

describe('pinned-key reload through the entry point', () => {
  it('re-reads the configuration file it started from', async () => {
    const nowS = Math.floor(Date.now() / 1000)
    const pinFor = () => {
      const p = didKeyProducer()
      return (
        `[[playground.pinned_keys]]\nagent_did = "${p.did}"\n` +
        `public_key_b64 = "${Buffer.from(p.publicKey).toString('base64')}"\nalgorithm = "ed25519"\n` +
        `valid_from = ${nowS - 60}\nvalid_until = ${nowS + 3600}\n`
      )
    }
    const settings = `[auth]\nadmin_tokens = ["reload-admin-token-0123456789"]\n[playground]\nenabled = true\n`
    const { run, file } = await startCli('', settings + pinFor())
    if (!run) throw new Error('the registry did not start')
    const url = `http://127.0.0.1:${addressOf(run).port}/admin/pinned-keys/reload`
    const headers = { authorization: 'Bearer reload-admin-token-0123456789' }
    writeFileSync(file, readFileSync(file, 'utf8') + pinFor())
    const res = await fetch(url, { method: 'POST', headers })
    expect(res.status).toBe(200)
    expect(await res.json()).toEqual({ ok: true, count: 2, valid_now: 2 })
    writeFileSync(file, readFileSync(file, 'utf8').replace('algorithm = "ed25519"', 'algorithm = "rsa"'))
    const refused = await fetch(url, { method: 'POST', headers })
    expect(refused.status).toBe(400)
  })
})
