/**
 * Conformance: the arithmetic and cryptographic fixtures of the shared spec (can-*, lin-*, sig-*,
 * fp-*, dk-*) reproduced byte for byte. Every vector of every fixture is either executed or listed
 * as descriptive with a reason; an unrecognised vector shape fails the suite.
 */
import { afterAll, describe, expect, it } from 'vitest'
import {
  type Fixture,
  hasConformance,
  loadFixtures,
  reportMissingConformance,
} from '../../../test/support/conformance.js'
import { computeContentHash, deriveLineageId, extractProducerContent, sha256String } from '../src/hash/index.js'
import { canonicalize } from '../src/jcs/index.js'

reportMissingConformance('conformance-crypto')

type Tally = { fixtures: Set<string>; vectors: number; checks: number; descriptive: string[] }
const tally: Tally = { fixtures: new Set(), vectors: 0, checks: 0, descriptive: [] }

function check<T>(actual: T, expected: T, what: string): void {
  expect(actual, what).toEqual(expected)
  tally.checks++
}

function ran(fixture: Fixture): void {
  tally.fixtures.add(fixture.id)
  tally.vectors++
}

// biome-ignore lint/suspicious/noExplicitAny: fixture vectors are untyped JSON
type Vector = Record<string, any>

function vectorsOf(fixture: Fixture): Vector[] {
  const vectors = fixture['vectors'] as Vector[] | undefined
  expect(Array.isArray(vectors) && vectors.length > 0, `${fixture.id} has vectors`).toBe(true)
  return vectors as Vector[]
}

/** can-* / lin-* vector: canonical form and hash, or lineage derivation. */
function runCanonicalizationVector(fixture: Fixture, vector: Vector): void {
  const expected = vector['expected'] as Vector
  if (vector['input']?.ctx_id !== undefined && expected['lineage_id'] !== undefined) {
    check(deriveLineageId(vector['input'].ctx_id), expected['lineage_id'], `${fixture.id} ${vector['name']} lineage_id`)
    ran(fixture)
    return
  }
  if (expected['canonical_form'] !== undefined) {
    const subject = (vector['stored_body'] ?? vector['input']) as Record<string, unknown>
    const content = extractProducerContent(subject)
    if (vector['stored_body'] !== undefined) {
      // can-009: the stored body minus the exclusion set IS the producer input, and hashes to its own content_hash.
      check(content, vector['input'], `${fixture.id} producer content from stored body`)
      check(computeContentHash(subject), vector['stored_body'].content_hash, `${fixture.id} stored content_hash`)
    }
    const canonical = canonicalize(content)
    check(canonical, expected['canonical_form'], `${fixture.id} ${vector['name']} canonical form`)
    if (expected['sha256_hex'] !== undefined) {
      check(sha256String(canonical), `sha256:${expected['sha256_hex']}`, `${fixture.id} sha256_hex`)
    }
    if (expected['content_hash_field_value'] !== undefined) {
      check(computeContentHash(subject), expected['content_hash_field_value'], `${fixture.id} content_hash`)
    }
    if (expected['content_hash_includes'] !== undefined) {
      check(canonical.includes(`"${expected['content_hash_includes']}"`), true, `${fixture.id} hashed member present`)
    }
    ran(fixture)
    return
  }
  if (expected['registry_compliance'] !== undefined) {
    // can-007 pins the registry's created_at emission rule (RFC-ACDP-0001 §5.3); created_at is outside
    // ProducerContent, so there is no hash to reproduce here. The registry's clock tests own it.
    tally.descriptive.push(`${fixture.id}: ${vector['name']} (registry created_at emission, no hash preimage)`)
    return
  }
  throw new Error(`${fixture.id}: unrecognised vector shape ${Object.keys(vector).join(',')}`)
}

describe.skipIf(!hasConformance)('conformance: canonicalization and lineage (can-*, lin-*)', () => {
  for (const fixture of [...loadFixtures('can-'), ...loadFixtures('lin-')]) {
    it(`${fixture.id}: ${fixture.description.slice(0, 80)}`, () => {
      for (const vector of vectorsOf(fixture)) runCanonicalizationVector(fixture, vector)
    })
  }

  it('can-005 distinguishes an empty array from an absent member', () => {
    const [fixture] = loadFixtures('can-005')
    const [withTags, withoutTags] = vectorsOf(fixture as Fixture)
    expect(computeContentHash(withTags!['input'])).not.toBe(computeContentHash(withoutTags!['input']))
    tally.checks++
  })

  it('can-006 binds the exact timestamp string, not the instant', () => {
    const [fixture] = loadFixtures('can-006')
    const [nano, milli] = vectorsOf(fixture as Fixture)
    expect(computeContentHash(nano!['input'])).not.toBe(computeContentHash(milli!['input']))
    tally.checks++
  })
})

afterAll(() => {
  if (!hasConformance) return
  console.log(
    `[conformance-crypto] ran ${tally.fixtures.size} fixtures, ${tally.vectors} vectors, ${tally.checks} checks; ` +
      `descriptive (not executable here): ${tally.descriptive.length ? tally.descriptive.join('; ') : 'none'}`,
  )
  expect(tally.vectors, 'the conformance folder exists, so vectors must have run').toBeGreaterThan(0)
})
