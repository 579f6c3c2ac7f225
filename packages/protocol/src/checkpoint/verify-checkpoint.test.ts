import { describe, expect, it } from 'vitest'
import { formatSha256 } from '../hash/index.js'
import { MemoryMerkleTree } from '../merkle/memory-tree.js'
import { computeLeafHash } from '../merkle/tree-hash.js'
import { p256PublicKeyFromPrivate } from '../signature/index.js'
import { buildCheckpoint, signCheckpoint } from './checkpoint.js'
import { formatLogId, registryDidOfLogId } from './log-id.js'
import { verifyCheckpoint } from './verify-checkpoint.js'
import { verifyLogConsistency, verifyLogInclusion } from './verify-log-proofs.js'
import { reasonOf } from '../../test/support/rejection.js'

const privateKey = new Uint8Array(32).fill(9)
const key = { algorithm: 'ecdsa-p256' as const, keyId: 'did:web:localhost%3A8443#receipt-key-1', privateKey }
const publicKey = { algorithm: 'ecdsa-p256' as const, publicKey: p256PublicKeyFromPrivate(privateKey) }
const logId = formatLogId('did:web:localhost%3A8443', 'dev-1')
const now = new Date('2026-07-04T12:00:00.000Z')
const context = { authority: 'localhost:8443', resolveKey: () => publicKey, now }

const tree = new MemoryMerkleTree()
for (let i = 0; i < 21; i++) tree.appendLeaf(new TextEncoder().encode(`entry ${i}`))
const checkpointAt = (size: number) =>
  signCheckpoint(buildCheckpoint({ logId, treeSize: size, rootHash: tree.computeRoot(size), timestamp: now }), key)

describe('log ids (RFC-ACDP-0012 §6, §7.4)', () => {
  it('formats and splits a log id, port included', () => {
    expect(logId).toBe('did:web:localhost%3A8443/log/dev-1')
    expect(registryDidOfLogId(logId)).toBe('did:web:localhost%3A8443')
  })

  it.each([
    ['did:web:example.com', 'Upper'],
    ['did:web:example.com', 'x'.repeat(33)],
    ['did:key:z6Mk', '1'],
  ])('refuses %s + /log/%s', async (did, instance) => {
    expect(await reasonOf(() => formatLogId(did, instance))).toEqual({
      code: 'invalid_structure',
      reason: 'log_id_invalid',
    })
  })
})

describe('checkpoints and proofs under an ecdsa-p256 receipt key on a registry with a port', () => {
  it('an inclusion proof for every leaf verifies end to end against a fresh checkpoint', async () => {
    const checkpoint = checkpointAt(21)
    await verifyCheckpoint(checkpoint, context)
    for (let i = 0; i < 21; i++) {
      const inclusion = {
        log_id: logId,
        leaf_index: i,
        tree_size: 21,
        inclusion_path: tree.proveInclusion(i).map(formatSha256),
        log_checkpoint: checkpoint,
      }
      await verifyLogInclusion(inclusion, computeLeafHash(new TextEncoder().encode(`entry ${i}`)), context)
    }
  })

  it('a consistency proof 13 → 21 verifies; a retained head of another log is refused', async () => {
    const retained = checkpointAt(13)
    const response = {
      log_id: logId,
      first_tree_size: 13,
      second_tree_size: 21,
      consistency_path: tree.proveConsistency(13, 21).map(formatSha256),
      log_checkpoint: checkpointAt(21),
    }
    const next = await verifyLogConsistency(response, retained, context)
    expect(next.checkpoint.tree_size).toBe(21)
    const otherLog = { ...retained, log_id: formatLogId('did:web:localhost%3A8443', 'dev-2') }
    expect(await reasonOf(() => verifyLogConsistency(response, otherLog, context))).toEqual({
      code: 'verification_failed',
      reason: 'log_id_mismatch',
    })
  })

  it('an empty log checkpoint carries the empty-tree root and verifies', async () => {
    const empty = checkpointAt(0)
    expect(empty.root_hash).toBe('sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855')
    await verifyCheckpoint(empty, context)
    const wrong = signCheckpoint(
      buildCheckpoint({ logId, treeSize: 0, rootHash: tree.computeRoot(1), timestamp: now }),
      key,
    )
    expect(await reasonOf(() => verifyCheckpoint(wrong, context))).toEqual({
      code: 'verification_failed',
      reason: 'empty_tree_root_mismatch',
    })
  })

  it('refuses to sign with a key outside the log_id registry DID', async () => {
    const unsigned = buildCheckpoint({ logId, treeSize: 1, rootHash: tree.computeRoot(1), timestamp: now })
    expect(await reasonOf(() => signCheckpoint(unsigned, { ...key, keyId: 'did:web:other.example#k' }))).toEqual({
      code: 'invalid_structure',
      reason: 'key_id_not_under_registry_did',
    })
  })
})

describe('malformed checkpoints and proofs yield domain errors (attacker-controlled input)', () => {
  const checkpoint = checkpointAt(5)
  it.each([
    { name: 'null', value: null },
    { name: 'a string', value: 'checkpoint' },
    { name: 'an unknown member', value: { ...checkpoint, extra: 1 } },
    { name: 'another checkpoint_version', value: { ...checkpoint, checkpoint_version: 'acdp-log/2' } },
    { name: 'a negative tree_size', value: { ...checkpoint, tree_size: -1 } },
    { name: 'a fractional tree_size', value: { ...checkpoint, tree_size: 1.5 } },
    { name: 'an uppercase root', value: { ...checkpoint, root_hash: checkpoint.root_hash.toUpperCase() } },
    { name: 'a second-precision timestamp', value: { ...checkpoint, timestamp: '2026-07-04T12:00:00Z' } },
  ])('checkpoint with $name → invalid_structure', async ({ value }) => {
    expect(await reasonOf(() => verifyCheckpoint(value, context))).toEqual({
      code: 'invalid_structure',
      reason: 'schema_violation',
    })
  })

  const inclusion = {
    log_id: logId,
    leaf_index: 0,
    tree_size: 5,
    inclusion_path: tree.proveInclusion(0, 5).map(formatSha256),
    log_checkpoint: checkpoint,
  }
  it.each([
    { name: 'a path element that is not a hash', value: { ...inclusion, inclusion_path: ['sha256:zz'] } },
    { name: 'leaf_index as a string', value: { ...inclusion, leaf_index: '0' } },
    { name: 'tree_size 0', value: { ...inclusion, tree_size: 0 } },
    { name: 'no checkpoint', value: { ...inclusion, log_checkpoint: undefined } },
  ])('inclusion proof with $name → invalid_structure', async ({ value }) => {
    expect(await reasonOf(() => verifyLogInclusion(value, new Uint8Array(32), context))).toEqual({
      code: 'invalid_structure',
      reason: 'schema_violation',
    })
  })

  it('an inclusion proof whose leaf_index exceeds tree_size fails verification', async () => {
    expect(
      await reasonOf(() => verifyLogInclusion({ ...inclusion, leaf_index: 5 }, new Uint8Array(32), context)),
    ).toEqual({
      code: 'verification_failed',
      reason: 'leaf_index_out_of_range',
    })
  })

  it.each([
    null,
    { log_id: logId },
    { log_id: logId, first_tree_size: 0, second_tree_size: 5, consistency_path: [], log_checkpoint: checkpoint },
  ])('consistency response %j → invalid_structure', async (value) => {
    expect(await reasonOf(() => verifyLogConsistency(value, checkpoint, context))).toEqual({
      code: 'invalid_structure',
      reason: 'schema_violation',
    })
  })
})
