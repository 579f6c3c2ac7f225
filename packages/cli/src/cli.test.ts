import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ProtocolError, parseKeyFile } from '@acdp/protocol'
import { afterAll, describe, expect, it } from 'vitest'
import { COMMANDS, runCli, toCliError } from './cli.js'
import { CliError, EXIT } from './exit-codes.js'
import { resolveStackTarget } from './stack-target.js'
import { captureIo } from './test-io.js'

const created: string[] = []
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'acdp-cli-'))
  created.push(dir)
  return dir
}
afterAll(() => {
  for (const dir of created) rmSync(dir, { recursive: true, force: true })
})

describe('runCli', () => {
  it('prints the command list for --help and exits 0', async () => {
    const io = captureIo({ cwd: tempDir() })
    expect(await runCli(['--help'], io)).toBe(EXIT.ok)
    for (const command of COMMANDS) expect(io.out()).toContain(`  ${command.name}`)
  })

  it('exits 2 with the help text when no command is given', async () => {
    const io = captureIo({ cwd: tempDir() })
    expect(await runCli([], io)).toBe(EXIT.usage)
    expect(io.out()).toContain('Usage: acdp <command>')
  })

  it.each(COMMANDS.map((command) => [command.name]))('acdp %s --help prints its usage and exits 0', async (name) => {
    const io = captureIo({ cwd: tempDir() })
    expect(await runCli([name, '--help'], io)).toBe(EXIT.ok)
    expect(io.out()).toMatch(new RegExp(`^Usage: acdp ${name}`))
  })

  it.each([
    ['an unknown command', ['frobnicate'], 'unknown command'],
    ['an unknown flag', ['runs', '--bogus'], "Unknown option '--bogus'"],
    ['a missing positional', ['get'], 'expected one ctx_id'],
    ['an extra positional', ['runs', 'extra'], 'expected no arguments'],
    ['a bad integer', ['runs', '--limit', '0'], '--limit must be an integer from 1 to 200'],
    ['a bad status', ['runs', '--status', 'done'], '--status must be one of'],
    ['a relative URL', ['runs', '--control-plane', 'localhost:3001'], 'must be an absolute http(s) URL'],
    ['publish without --key', ['publish', 'body.json'], '--key FILE is required'],
    ['mcp --port without --http', ['mcp', '--port', '3002'], 'need --http'],
    [
      'mcp --http off loopback without a token',
      ['mcp', '--http', '--host', '0.0.0.0', '--port', '0', '--registry', 'http://127.0.0.1:9'],
      'without a bearer token',
    ],
  ])('exits 2 with one line for %s', async (_name, argv, fragment) => {
    const io = captureIo({ cwd: tempDir() })
    expect(await runCli(argv, io)).toBe(EXIT.usage)
    expect(io.err()).toContain(fragment)
    expect(io.err().trimEnd().split('\n')).toHaveLength(1)
  })

  it('exits 3 with one line when the control plane cannot be reached', async () => {
    const io = captureIo({
      cwd: tempDir(),
      fetch: async () => {
        throw new TypeError('fetch failed', {
          cause: Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
        })
      },
    })
    expect(await runCli(['runs', '--control-plane', 'http://127.0.0.1:9'], io)).toBe(EXIT.unreachable)
    expect(io.err()).toMatch(/^acdp runs: unreachable: cannot reach http:\/\/127\.0\.0\.1:9\/runs: ECONNREFUSED/)
  })

  it('exits 1 with the server’s error code on an error answer', async () => {
    const io = captureIo({
      cwd: tempDir(),
      fetch: async () =>
        Response.json({ statusCode: 404, errorCode: 'RUN_NOT_FOUND', message: 'run absent' }, { status: 404 }),
    })
    expect(await runCli(['run', 'nope', '--control-plane', 'http://cp.test'], io)).toBe(EXIT.failure)
    expect(io.err()).toContain('acdp run: RUN_NOT_FOUND:')
  })
})

describe('toCliError', () => {
  const io = { signal: new AbortController().signal }
  it.each([
    [
      'a registry rejection',
      new ProtocolError('request_rejected', 'not_found: gone', { details: { status: 404, code: 'not_found' } }),
      EXIT.failure,
      'not_found',
    ],
    ['an unreachable registry', new ProtocolError('outbound_failed', 'no answer'), EXIT.unreachable, 'unreachable'],
    ['a malformed answer', new ProtocolError('malformed_input', 'bad'), EXIT.failure, 'malformed_input'],
    ['an unexpected error', new RangeError('boom'), EXIT.failure, 'internal_error'],
  ])('maps %s', (_name, error, exitCode, code) => {
    expect(toCliError(error, io)).toMatchObject({ exitCode, code })
  })

  it('keeps a CliError as it is', () => {
    const error = new CliError(EXIT.usage, 'usage', 'x')
    expect(toCliError(error, io)).toBe(error)
  })
})

describe('acdp keygen', () => {
  it('writes a 0600 key file whose DID it prints', async () => {
    const cwd = tempDir()
    const io = captureIo({ cwd })
    expect(await runCli(['keygen', '--out', 'alice.json'], io)).toBe(EXIT.ok)
    const path = join(cwd, 'alice.json')
    expect(statSync(path).mode & 0o777).toBe(0o600)
    expect(io.out().trim()).toBe(parseKeyFile(readFileSync(path, 'utf8')).did)
  })

  it('refuses to overwrite a key without --force (exit 2) and overwrites with it', async () => {
    const cwd = tempDir()
    await runCli(['keygen'], captureIo({ cwd }))
    const first = readFileSync(join(cwd, 'acdp-key.json'), 'utf8')
    expect(await runCli(['keygen'], captureIo({ cwd }))).toBe(EXIT.usage)
    expect(readFileSync(join(cwd, 'acdp-key.json'), 'utf8')).toBe(first)
    expect(await runCli(['keygen', '--force'], captureIo({ cwd }))).toBe(EXIT.ok)
    expect(readFileSync(join(cwd, 'acdp-key.json'), 'utf8')).not.toBe(first)
  })

  it('writes the DID document for --did-web and reports where to serve it', async () => {
    const cwd = tempDir()
    const io = captureIo({ cwd })
    expect(await runCli(['keygen', '--out', 'web.json', '--did-web', 'agents.example.com:alice', '--json'], io)).toBe(
      EXIT.ok,
    )
    const summary = JSON.parse(io.out())
    expect(summary).toMatchObject({
      did: 'did:web:agents.example.com:alice',
      key_id: 'did:web:agents.example.com:alice#key-1',
      did_document_url: 'https://agents.example.com/alice/did.json',
      did_document_file: join(cwd, 'web.did.json'),
    })
    expect(JSON.parse(readFileSync(join(cwd, 'web.did.json'), 'utf8')).id).toBe('did:web:agents.example.com:alice')
  })

  it('refuses a did:web that is an IP address', async () => {
    expect(await runCli(['keygen', '--did-web', '127.0.0.1'], captureIo({ cwd: tempDir() }))).toBe(EXIT.usage)
  })
})

describe('acdp publish input checks', () => {
  it.each([
    ['a body that is not JSON', 'not json', 'is not valid JSON'],
    ['a body that is an array', '[]', 'must hold a JSON object'],
    ['a body with a duplicate member', '{"title":"a","title":"b"}', 'is not valid JSON'],
  ])('exits 2 for %s', async (_name, text, fragment) => {
    const cwd = tempDir()
    await runCli(['keygen'], captureIo({ cwd }))
    writeFileSync(join(cwd, 'body.json'), text)
    const io = captureIo({ cwd, fetch: async () => Response.json({}) })
    expect(await runCli(['publish', 'body.json', '--key', 'acdp-key.json', '--registry', 'http://r.test'], io)).toBe(
      EXIT.usage,
    )
    expect(io.err()).toContain(fragment)
  })

  it('exits 2 for a key file that is not one', async () => {
    const cwd = tempDir()
    writeFileSync(join(cwd, 'key.json'), '{"algorithm":"ed25519"}')
    writeFileSync(join(cwd, 'body.json'), '{}')
    const io = captureIo({ cwd })
    expect(await runCli(['publish', 'body.json', '--key', 'key.json'], io)).toBe(EXIT.usage)
    expect(io.err()).toContain('is not a usable key file')
  })
})

describe('resolveStackTarget', () => {
  it('prefers flags, then ACDP_* variables, then the dev stack files, then defaults', () => {
    const cwd = tempDir()
    const data = join(cwd, 'data')
    expect(resolveStackTarget({ cwd, env: {} })).toEqual({
      registryUrl: 'http://127.0.0.1:3000',
      controlPlaneUrl: 'http://127.0.0.1:3001',
    })

    mkdirSync(data)
    writeFileSync(
      join(data, 'dev-stack.json'),
      JSON.stringify({ registry_url: 'http://127.0.0.1:4000', control_plane_url: 'http://127.0.0.1:4001' }),
    )
    writeFileSync(
      join(data, 'dev-secrets.json'),
      JSON.stringify({ control_plane_api_key: 'k'.repeat(20), run_secret: 's'.repeat(20) }),
    )
    expect(resolveStackTarget({ cwd, env: {} })).toEqual({
      registryUrl: 'http://127.0.0.1:4000',
      controlPlaneUrl: 'http://127.0.0.1:4001',
      apiKey: 'k'.repeat(20),
      runSecret: 's'.repeat(20),
    })
    expect(
      resolveStackTarget({ cwd, env: { ACDP_REGISTRY_URL: 'http://env.test', ACDP_API_KEY: 'env-key' } }),
    ).toMatchObject({
      registryUrl: 'http://env.test',
      apiKey: 'env-key',
    })
    expect(
      resolveStackTarget({ cwd, env: { ACDP_REGISTRY_URL: 'http://env.test' } }, { registry: 'http://flag.test' })
        .registryUrl,
    ).toBe('http://flag.test')
  })
})
