import { describe, expect, it } from 'vitest'
import { buildCheckpoint, signCheckpoint } from '../checkpoint/checkpoint.js'
import { didKeyKeyId, encodeDidKey, parseDidKey } from '../did/index.js'
import { formatSha256 } from '../hash/index.js'
import { MemoryMerkleTree } from '../merkle/memory-tree.js'
import { ed25519PublicKeyFromSeed } from '../signature/index.js'
import { cosignCheckpoint } from './cosignature.js'
import { countWitnesses, verifyCosignature } from './verify-cosignature.js'
import { decideCosignature } from './witness-decision.js'
import { reasonOf } from '../../test/support/rejection.js'

const tree = new MemoryMerkleTree()
for (let i = 0; i < 12; i++) tree.appendLeaf(Uint8Array.of(i))
const registryKey = {
  algorithm: 'ed25519' as const,
  keyId: 'did:web:registry.example.com#receipt-key-1',
  privateKey: new Uint8Array(32).fill(1),
}
const checkpointAt = (size: number) =>
  signCheckpoint(
    buildCheckpoint({
      logId: 'did:web:registry.example.com/log/1',
      treeSize: size,
      rootHash: tree.computeRoot(size),
      timestamp: new Date('2026-07-04T12:00:00.000Z'),
    }),
    registryKey,
  )

// A did:key witness: the key is the identity, resolution is decoding (RFC-ACDP-0015 §9).
const witnessSeed = new Uint8Array(32).fill(5)
const witnessId = encodeDidKey({ algorithm: 'ed25519', publicKey: ed25519PublicKeyFromSeed(witnessSeed) })
const witnessKey = { algorithm: 'ed25519' as const, keyId: didKeyKeyId(witnessId), privateKey: witnessSeed }
const resolveDidKey = (keyId: string) => parseDidKey(keyId.slice(0, keyId.indexOf('#')))

describe('did:key witnesses (RFC-ACDP-0015 §9)', () => {
  it('cosigns and verifies with the key decoded from the DID itself', async () => {
    const checkpoint = checkpointAt(12)
    const cosignature = cosignCheckpoint({
      checkpoint,
      witnessId,
      witnessedAt: new Date('2026-07-04T12:00:01.234Z'),
      key: witnessKey,
    })
    const context = {
      checkpoint,
      resolveKey: resolveDidKey,
      isTrustedWitness: (id: string) => id === witnessId,
      now: new Date('2026-07-04T12:05:01.234Z'),
    }
    const verified = await verifyCosignature(cosignature, context)
    expect(verified.ageMs).toBe(300_000)
    expect((await countWitnesses([cosignature, cosignature], context)).count).toBe(1)
  })

  it('refuses to cosign with a key outside witness_id', async () => {
    expect(
      await reasonOf(() =>
        cosignCheckpoint({
          checkpoint: checkpointAt(3),
          witnessId: 'did:web:witness.example.org',
          witnessedAt: new Date(0),
          key: witnessKey,
        }),
      ),
    ).toEqual({ code: 'invalid_structure', reason: 'key_id_not_under_witness_id' })
  })
})

describe('malformed cosignatures count as failures, never as witnesses', () => {
  const checkpoint = checkpointAt(12)
  const good = cosignCheckpoint({
    checkpoint,
    witnessId,
    witnessedAt: new Date('2026-07-04T12:00:01.000Z'),
    key: witnessKey,
  })
  const context = {
    checkpoint,
    resolveKey: resolveDidKey,
    isTrustedWitness: () => true,
    now: new Date('2026-07-04T12:00:02.000Z'),
  }

  it.each([
    { name: 'null', value: null, reason: 'schema_violation' },
    { name: 'another version', value: { ...good, cosignature_version: 'acdp-cosig/2' }, reason: 'schema_violation' },
    { name: 'a witness_id that is not a DID', value: { ...good, witness_id: 'witness' }, reason: 'schema_violation' },
    {
      name: 'an extra checkpoint member',
      value: { ...good, witnessed_checkpoint: { ...good.witnessed_checkpoint, signature: {} } },
      reason: 'schema_violation',
    },
    {
      name: 'key_id of another witness',
      value: { ...good, signature: { ...good.signature, key_id: 'did:web:other.example#k' } },
      reason: 'key_id_not_under_witness_id',
    },
  ])('$name → $reason', async ({ value, reason }) => {
    expect((await reasonOf(() => verifyCosignature(value, context))).reason).toBe(reason)
    const count = await countWitnesses([value, good], context)
    expect(count.count).toBe(1)
    expect(count.failures.map((f) => f.index)).toEqual([0])
  })
})

describe('witness decisions (RFC-ACDP-0015 §7)', () => {
  const at = (size: number) => {
    const { log_id, tree_size, root_hash } = checkpointAt(size)
    return { log_id, tree_size, root_hash }
  }

  it.each([
    {
      name: 'a newer consistent checkpoint',
      retained: 5,
      presented: 12,
      path: () => tree.proveConsistency(5, 12),
      action: 'cosign',
    },
    {
      name: 'an older checkpoint re-presented, consistent',
      retained: 12,
      presented: 5,
      path: () => tree.proveConsistency(5, 12),
      action: 'cosign',
    },
    { name: 'the same checkpoint again (liveness)', retained: 7, presented: 7, path: () => [], action: 'cosign' },
    {
      name: 'a proof for other sizes',
      retained: 5,
      presented: 12,
      path: () => tree.proveConsistency(6, 12),
      action: 'refuse',
    },
    { name: 'no proof at all', retained: 5, presented: 12, path: () => [], action: 'refuse' },
  ])('$name → $action', ({ retained, presented, path, action }) => {
    expect(
      decideCosignature({ retainedHead: at(retained), presented: at(presented), consistencyPath: path() }).action,
    ).toBe(action)
  })

  it('an empty retained log is a prefix of anything; another log_id never is', () => {
    const empty = {
      log_id: 'did:web:registry.example.com/log/1',
      tree_size: 0,
      root_hash: formatSha256(new MemoryMerkleTree().computeRoot()),
    }
    expect(decideCosignature({ retainedHead: empty, presented: at(12), consistencyPath: [] }).action).toBe('cosign')
    const decision = decideCosignature({
      retainedHead: { ...at(5), log_id: 'did:web:registry.example.com/log/2' },
      presented: at(12),
      consistencyPath: [],
    })
    expect(decision).toMatchObject({ action: 'refuse', reason: 'log_id_mismatch' })
  })
})
