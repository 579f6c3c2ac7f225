/**
 * The browser platform twins (`*-platform.browser.ts`, swapped in by the package.json "browser" map for the
 * console's bundle) against the same conformance fixtures as the Node platform, plus agreement with the Node
 * platform on valid, tampered and weak signatures, and a check that `@acdp/protocol/verify` reaches no Node
 * built-in once the twins are swapped in.
 */
import { readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  type Fixture,
  hasConformance,
  loadFixtures,
  reportMissingConformance,
} from '../../../test/support/conformance.js'
import * as nodeSha256 from '../src/hash/sha256-platform.js'
import * as browserSha256 from '../src/hash/sha256-platform.browser.js'
import { canonicalize } from '../src/jcs/index.js'
import * as browserP256 from '../src/signature/ecdsa-p256-platform.browser.js'
import * as nodeP256 from '../src/signature/ecdsa-p256-platform.js'
import * as browserEd25519 from '../src/signature/ed25519-platform.browser.js'
import * as nodeEd25519 from '../src/signature/ed25519-platform.js'
import { findEd25519Weakness } from '../src/signature/ed25519-strictness.js'
import { SMALL_ORDER_ENCODINGS } from '../src/signature/ed25519-small-order.js'
import { extractProducerContent } from '../src/hash/content-hash.js'

reportMissingConformance('conformance-browser-platform')

const SRC = fileURLToPath(new URL('../src/', import.meta.url))
const hex = (value: string) => new Uint8Array(Buffer.from(value, 'hex'))
const ascii = (value: string) => new Uint8Array(Buffer.from(value, 'latin1'))

describe.skipIf(!hasConformance)('browser SHA-256 twin reproduces the fixture hashes', () => {
  for (const fixture of [...loadFixtures('can-'), ...loadFixtures('sig-')]) {
    const vectors = (fixture['vectors'] ?? []) as Fixture[]
    const hashed = vectors.filter((v) => v['expected']?.['content_hash'] ?? v['expected']?.['content_hash_field_value'])
    if (hashed.length === 0) continue
    it(`${fixture.id}: content_hash over JCS(ProducerContent)`, () => {
      for (const vector of hashed) {
        const expected = vector['expected']['content_hash'] ?? vector['expected']['content_hash_field_value']
        const subject = vector['producer_content'] ?? vector['stored_body'] ?? vector['input']
        const canonical = canonicalize(extractProducerContent(subject))
        expect(`sha256:${browserSha256.digestSha256Hex(canonical)}`).toBe(expected)
        expect(browserSha256.digestSha256(canonical)).toEqual(nodeSha256.digestSha256(canonical))
      }
    })
  }
})

describe.skipIf(!hasConformance)('browser signature twins against sig-*', () => {
  it('sig-001 / sig-003: Ed25519 key, deterministic signature and verification match the fixture', () => {
    for (const fixture of [...loadFixtures('sig-001'), ...loadFixtures('sig-003')]) {
      const pair = fixture['test_keypair']
      const seed = hex(pair['private_seed_hex'])
      const publicKey = browserEd25519.derivePublicKey(seed)
      expect(Buffer.from(publicKey).toString('hex')).toBe(pair['public_key_hex'])
      for (const vector of fixture['vectors'] as Fixture[]) {
        const message = ascii(vector['expected']['content_hash'])
        const signature = browserEd25519.signMessage(seed, message)
        expect(Buffer.from(signature).toString('hex')).toBe(vector['expected']['signature_value_hex'])
        expect(browserEd25519.verifySignature(publicKey, message, signature)).toBe(true)
        expect(
          browserEd25519.verifySignature(publicKey, ascii(`${vector['expected']['content_hash']} `), signature),
        ).toBe(false)
      }
    }
  })

  it('sig-002: the P-256 wire signature verifies under the compressed and uncompressed key', () => {
    const [fixture] = loadFixtures('sig-002')
    const pair = (fixture as Fixture)['test_keypair']
    const uncompressed = hex(pair['public_key_uncompressed_sec1_hex'])
    for (const vector of (fixture as Fixture)['vectors'] as Fixture[]) {
      if (vector['expected']['signature_value_hex'] === undefined) continue
      const message = ascii(vector['expected']['content_hash'])
      const signature = hex(vector['expected']['signature_value_hex'])
      expect(browserP256.verifyP1363Signature(uncompressed, message, signature)).toBe(true)
      const tampered = signature.slice()
      tampered[10] = (tampered[10] as number) ^ 1
      expect(browserP256.verifyP1363Signature(uncompressed, message, tampered)).toBe(false)
      expect(nodeP256.verifyP1363Signature(uncompressed, message, signature)).toBe(true)
      expect(nodeP256.verifyP1363Signature(uncompressed, message, tampered)).toBe(false)
      expect(browserP256.verifyP1363Signature(uncompressed.subarray(1), message, signature)).toBe(false)
    }
  })
})

describe('browser and Node platforms agree', () => {
  it('on valid and bit-flipped Ed25519 signatures over random messages', () => {
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 32, maxLength: 32 }),
        fc.uint8Array({ maxLength: 200 }),
        fc.nat(511),
        (seed, message, bit) => {
          const publicKey = nodeEd25519.derivePublicKey(seed)
          expect(browserEd25519.derivePublicKey(seed)).toEqual(publicKey)
          const signature = nodeEd25519.signMessage(seed, message)
          expect(browserEd25519.signMessage(seed, message)).toEqual(signature)
          const flipped = signature.slice()
          flipped[bit >> 3] = (flipped[bit >> 3] as number) ^ (1 << (bit & 7))
          for (const candidate of [signature, flipped]) {
            // The strictness rules run before either platform in ed25519.ts; compare the platforms on what passes.
            if (findEd25519Weakness(publicKey, candidate) !== null) continue
            expect(browserEd25519.verifySignature(publicKey, message, candidate)).toBe(
              nodeEd25519.verifySignature(publicKey, message, candidate),
            )
          }
        },
      ),
      { numRuns: 60 },
    )
  })

  it('on SHA-256 of random bytes and strings', () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.uint8Array({ maxLength: 300 }), fc.string({ unit: 'grapheme', maxLength: 80 })),
        (input) => {
          expect(browserSha256.digestSha256Hex(input)).toBe(nodeSha256.digestSha256Hex(input))
        },
      ),
      { numRuns: 100 },
    )
  })

  it('in refusing every small-order public key (strictness rules are shared, not per platform)', () => {
    const signature = new Uint8Array(64)
    for (const encoding of SMALL_ORDER_ENCODINGS) {
      expect(findEd25519Weakness(encoding, signature)).toBe('small_order_public_key')
    }
  })
})

describe('@acdp/protocol/verify in a browser bundle', () => {
  it('reaches no Node built-in once the package.json "browser" map is applied', () => {
    const browserMap = JSON.parse(readFileSync(join(SRC, '..', 'package.json'), 'utf8'))['browser'] as Record<
      string,
      string
    >
    const swapped = new Map(
      Object.entries(browserMap).map(([from, to]) => [
        resolve(SRC, '..', from.replace('./dist/', 'src/').replace(/\.js$/, '.ts')),
        resolve(SRC, '..', to.replace('./dist/', 'src/').replace(/\.js$/, '.ts')),
      ]),
    )
    expect(swapped.size).toBe(5)
    const seen = new Set<string>()
    const nodeImports: string[] = []
    const visit = (file: string) => {
      const actual = swapped.get(file) ?? file
      if (seen.has(actual)) return
      seen.add(actual)
      const text = readFileSync(actual, 'utf8')
      // `import type` is erased at compile time: it puts nothing in a bundle, so it is not followed.
      for (const match of text.matchAll(/^(?:import|export)(?!\s+type\s)[^'"]*from '([^']+)'/gm)) {
        const specifier = match[1] as string
        if (specifier.startsWith('node:')) nodeImports.push(`${actual.slice(SRC.length)} → ${specifier}`)
        else if (specifier.startsWith('.')) visit(resolve(dirname(actual), specifier.replace(/\.js$/, '.ts')))
      }
    }
    visit(join(SRC, 'verify.ts'))
    expect(seen.size).toBeGreaterThan(10)
    for (const twin of ['ed25519-platform', 'typebox-compile-platform', 'noble-curves-platform']) {
      expect([...seen].some((file) => file.endsWith(`${twin}.browser.ts`))).toBe(true)
    }
    expect(nodeImports).toEqual([])
    // The console installs the `buffer` package as the Buffer global; it has no 'base64url' encoding (a DID
    // document's JWK would silently fail to decode in the browser), so no reachable module may use it.
    const base64url = [...seen].filter((file) => /['"]base64url['"]/.test(readFileSync(file, 'utf8')))
    expect(base64url.map((file) => file.slice(SRC.length))).toEqual([])
  })
})
