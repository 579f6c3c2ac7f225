/** Inbound TLS (`registry.tls`): a real loopback socket serving HTTPS with the configured certificate. */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import { request } from 'node:https'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { AUTHORITY, createTestRegistry, type TestRegistry } from './support/registry-harness.js'

let registry: TestRegistry | undefined
let dir = ''

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'acdp-registry-tls-'))
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

afterAll(async () => {
  await registry?.close()
})

it('serves HTTPS with the configured certificate when registry.tls.enabled', async () => {
  registry = await createTestRegistry({
    config: {
      registry: {
        authority: AUTHORITY,
        tls: { enabled: true, cert_path: join(dir, 'cert.pem'), key_path: join(dir, 'key.pem') },
      },
    },
  })
  await registry.app.listen({ port: 0, host: '127.0.0.1' })
  const { port } = registry.app.server.address() as { port: number }
  const status = await new Promise<number | undefined>((resolve, reject) => {
    const req = request(
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
})
