/**
 * Pinned agent keys of playground builds (`[playground]`) and `POST /admin/pinned-keys/reload`
 * (product spec "Endpoints"): startup validation, verification against pins without DID fetches, pinned_only, and
 * a reload that validates like startup and keeps the current pins when refused.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { ConfigError, loadConfig, resolveConfig, type RegistryConfigInput } from '../src/core/config.js'
import type { PinnedKeyEntry } from '../src/auth/pinned-keys.js'
import {
  countRows,
  didKeyProducer,
  didWebProducer,
  minimalUnsigned,
  type Producer,
  publish,
  signRequest,
  type TestRegistry,
  TestClock,
  useTestRegistry,
} from './support/registry-harness.js'
import { TEST_RECEIPT_SEED_B64 } from './support/trust.js'

const start = useTestRegistry()
const ADMIN_TOKEN = 'pinned-keys-admin-token-0123456789'
const admin = { authorization: `Bearer ${ADMIN_TOKEN}` }
const NOW_S = Date.parse('2026-05-01T12:00:00.000Z') / 1000

function pinOf(p: Producer, window: { from?: number; until?: number } = {}): PinnedKeyEntry {
  return {
    agent_did: p.did,
    public_key_b64: Buffer.from(p.publicKey).toString('base64'),
    algorithm: 'ed25519',
    valid_from: window.from ?? NOW_S - 3600,
    valid_until: window.until ?? NOW_S + 3600,
  }
}

function playground(pins: PinnedKeyEntry[], pinnedOnly = true, extra: RegistryConfigInput = {}): RegistryConfigInput {
  return {
    ...extra,
    playground: { enabled: true, pinned_only: pinnedOnly, pinned_keys: pins },
    auth: { admin_tokens: [ADMIN_TOKEN] },
  }
}

const signed = (p: Producer, title = 'pinned') => signRequest(p, minimalUnsigned(p, { title }))

describe('[playground] startup rules', () => {
  const base = { registry: { authority: 'a.example' } }
  const p = didKeyProducer()
  const good = pinOf(p)
  it.each<[string, PinnedKeyEntry, RegExp]>([
    ['bad base64', { ...good, public_key_b64: 'not base64!' }, /is not base64/],
    ['a short Ed25519 key', { ...good, public_key_b64: Buffer.alloc(31, 1).toString('base64') }, /32-byte/],
    [
      'a small-order Ed25519 key',
      { ...good, public_key_b64: Buffer.concat([Buffer.from([1]), Buffer.alloc(31)]).toString('base64') },
      /not a valid ed25519 public key/,
    ],
    [
      'a compressed P-256 point',
      { ...good, algorithm: 'ecdsa-p256', public_key_b64: Buffer.alloc(33, 2).toString('base64') },
      /65-byte uncompressed/,
    ],
    ['an empty window', { ...good, valid_from: NOW_S, valid_until: NOW_S }, /valid_from .* before valid_until/],
    ['a non-DID agent', { ...good, agent_did: 'agent-7' }, /not a did:web or did:key DID/],
  ])('refuses %s even while the playground is off', (_name, entry, message) => {
    expect(() => resolveConfig({ ...base, playground: { pinned_keys: [entry] } })).toThrow(message)
  })

  it('refuses pinned_only without pins and receipts without pinned_only, and accepts a sound playground', () => {
    expect(() => resolveConfig({ ...base, playground: { pinned_only: true } })).toThrow(/needs at least one/)
    expect(() =>
      resolveConfig({
        ...base,
        receipt: { signing_key_seed_b64: TEST_RECEIPT_SEED_B64 },
        playground: { enabled: true, pinned_keys: [good] },
      }),
    ).toThrow(/receipts in a playground build/)
    const ok = resolveConfig({
      ...base,
      receipt: { signing_key_seed_b64: TEST_RECEIPT_SEED_B64 },
      playground: { enabled: true, pinned_only: true, pinned_keys: [good] },
    })
    expect(ok.playground.enabled).toBe(true)
  })
})

describe('verification against pinned keys', () => {
  it('accepts a pinned did:web agent without fetching its DID document', async () => {
    const p = didWebProducer('did:web:agents.example.com:pinned')
    const r = await start({ config: playground([pinOf(p)]) })
    const res = await publish(r.app, signed(p))
    expect(res.statusCode).toBe(201)
    expect(r.dids.fetches).toBe(0)
  })

  it('refuses a signature by another key than the pin, though the DID document would accept it', async () => {
    const p = didWebProducer('did:web:agents.example.com:pinned')
    const impostor = { ...didWebProducer(p.did), keyId: p.keyId }
    const r = await start({ config: playground([pinOf(p)]) })
    r.dids.host([impostor])
    const before = await countRows(r.database)
    const res = await publish(r.app, signed(impostor))
    expect([res.statusCode, res.json().error.code]).toEqual([400, 'invalid_signature'])
    expect(await countRows(r.database)).toEqual(before)
    expect(r.dids.fetches).toBe(0)
  })

  it('with pinned_only refuses an unpinned agent and a pin outside its window (403, nothing stored)', async () => {
    const pinned = didKeyProducer()
    const later = didKeyProducer()
    const clock = new TestClock()
    const r = await start({ clock, config: playground([pinOf(pinned), pinOf(later, { from: NOW_S + 60 })]) })
    const before = await countRows(r.database)
    for (const p of [didKeyProducer(), later]) {
      const res = await publish(r.app, signed(p))
      expect([res.statusCode, res.json().error.code]).toEqual([403, 'key_not_authorized'])
    }
    expect(await countRows(r.database)).toEqual(before)
    clock.advance(60_000)
    expect((await publish(r.app, signed(later))).statusCode).toBe(201)
    // valid_until is exclusive.
    clock.advance(3600_000)
    expect((await publish(r.app, signed(pinned, 'after window'))).json().error.code).toBe('key_not_authorized')
  })

  it('without pinned_only resolves an unpinned agent as usual', async () => {
    const r = await start({ config: playground([pinOf(didKeyProducer())], false) })
    const unpinned = didWebProducer('did:web:agents.example.com:free')
    r.dids.host([unpinned])
    expect((await publish(r.app, signed(unpinned))).statusCode).toBe(201)
    expect(r.dids.fetches).toBe(1)
  })

  it('checks the /auth/token challenge signature against the pin', async () => {
    const p = didWebProducer('did:web:agents.example.com:pinned')
    const r = await start({
      config: {
        ...playground([pinOf(p)]),
        auth: { enabled: true, jwt_secret: Buffer.alloc(32, 7).toString('base64'), admin_tokens: [ADMIN_TOKEN] },
      },
    })
    const { login } = await import('./support/bearer-login.js')
    const token = await login(r.app, p)
    expect(token.split('.')).toHaveLength(3)
    expect(r.dids.fetches).toBe(0)
  })
})

describe('POST /admin/pinned-keys/reload', () => {
  const dir = mkdtempSync(join(tmpdir(), 'acdp-pins-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  function tomlFor(pins: PinnedKeyEntry[]): string {
    const entries = pins
      .map(
        (pin) =>
          `[[playground.pinned_keys]]\nagent_did = "${pin.agent_did}"\npublic_key_b64 = "${pin.public_key_b64}"\n` +
          `algorithm = "${pin.algorithm}"\nvalid_from = ${pin.valid_from}\nvalid_until = ${pin.valid_until}\n`,
      )
      .join('\n')
    return `[registry]\nauthority = "registry.example.com"\n\n[playground]\nenabled = true\npinned_only = true\n\n${entries}`
  }

  const reload = (r: TestRegistry, headers: Record<string, string> = admin) =>
    r.app.inject({ method: 'POST', url: '/admin/pinned-keys/reload', headers })

  it('swaps the pins from the configuration file, and keeps them when the file would be refused', async () => {
    const first = didKeyProducer()
    const second = didKeyProducer()
    const path = join(dir, 'registry.toml')
    writeFileSync(path, tomlFor([pinOf(first)]))
    const r = await start({
      config: playground([pinOf(first)]),
      deps: { reloadPinnedKeys: () => loadConfig({ path, env: {} }).playground.pinned_keys },
    })
    expect((await publish(r.app, signed(first))).statusCode).toBe(201)

    writeFileSync(path, tomlFor([pinOf(second)]))
    const swapped = await reload(r)
    expect(swapped.statusCode).toBe(200)
    expect(swapped.json()).toEqual({ ok: true, count: 1, valid_now: 1 })
    expect((await publish(r.app, signed(first, 'again'))).json().error.code).toBe('key_not_authorized')
    expect((await publish(r.app, signed(second))).statusCode).toBe(201)

    // A file startup would refuse (an empty window) changes nothing.
    writeFileSync(path, tomlFor([{ ...pinOf(first), valid_until: 1, valid_from: 2 }]))
    const refused = await reload(r)
    expect([refused.statusCode, refused.json().error.code]).toEqual([400, 'schema_violation'])
    expect((await publish(r.app, signed(second, 'still pinned'))).statusCode).toBe(201)
    // pinned_only with no pins left is refused too.
    writeFileSync(path, tomlFor([]))
    expect((await reload(r)).statusCode).toBe(400)
    expect((await publish(r.app, signed(second, 'kept'))).statusCode).toBe(201)
  })

  it('needs the admin bearer, answers 501 without a configuration source, and is absent outside playgrounds', async () => {
    const r = await start({ config: playground([pinOf(didKeyProducer())]) })
    for (const headers of [{}, { authorization: 'Bearer wrong' }] as Record<string, string>[]) {
      const res = await reload(r, headers)
      expect([res.statusCode, res.json().error.code]).toEqual([403, 'not_authorized'])
    }
    const unsourced = await reload(r)
    expect([unsourced.statusCode, unsourced.json().error.code]).toEqual([501, 'not_implemented'])
    await r.close()

    const plain = await start({ config: { auth: { admin_tokens: [ADMIN_TOKEN] } } })
    expect((await reload(plain)).statusCode).toBe(404)
  })

  it('says why a reload was refused', async () => {
    const r = await start({
      config: playground([pinOf(didKeyProducer())]),
      deps: {
        reloadPinnedKeys: () => {
          throw new ConfigError('playground.pinned_keys: refused for the test')
        },
      },
    })
    const res = await reload(r)
    expect(res.json().error.details.reason).toContain('refused for the test')
  })
})
