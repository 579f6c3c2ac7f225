/**
 * The benchmark bulk loader (bench/log-bulk-load.ts) must leave exactly the log tables `count` logged publishes
 * would: the registry's own full self-check accepts them, its signed checkpoint anchors the start-up check, and
 * the roots it reports are those of an independent in-memory tree over the same leaves.
 */
import {
  computeCheckpointHash,
  computeLeafHash,
  formatLogId,
  formatSha256,
  MemoryMerkleTree,
  parseSha256,
  verifyInclusionProof,
  verifyReceiptSignature,
} from '@acdp/protocol'
import {
  loadReceiptKeyring,
  logNodePosition,
  openRegistryStore,
  registryDidOf,
  resolveConfig,
  TransparencyLog,
} from '@acdp/registry'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { DatabaseSync } from 'node:sqlite'
import { afterEach, describe, expect, it } from 'vitest'
import { bulkLoadLog, syntheticLeafJson } from '../../bench/log-bulk-load.js'

const AUTHORITY = 'bench.registry.test'
const LOG_ID = formatLogId(registryDidOf(AUTHORITY), '1')
const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

/** A migrated registry database in a fresh directory, with its config (receipt key and log on). */
async function scratchRegistry() {
  const dir = mkdtempSync(join(tmpdir(), 'acdp-bulk-load-test-'))
  dirs.push(dir)
  const config = resolveConfig({
    registry: { authority: AUTHORITY },
    receipt: { signing_key_seed_b64: Buffer.alloc(32, 7).toString('base64') },
    log: { enabled: true },
    storage: { backend: 'sqlite', sqlite_path: join(dir, 'registry.db') },
  })
  await (await openRegistryStore(config.storage)).close()
  const keyring = loadReceiptKeyring(config)
  if (!keyring) throw new Error('no receipt key')
  return { config, keyring, path: config.storage.sqlite_path }
}

async function openLog(config: Awaited<ReturnType<typeof scratchRegistry>>['config']) {
  const keyring = loadReceiptKeyring(config)
  if (!keyring) throw new Error('no receipt key')
  const opened = await openRegistryStore(config.storage)
  const log = new TransparencyLog(
    { store: opened.store, clock: () => new Date() },
    {
      logId: LOG_ID,
      key: keyring.signingKey,
      checkpointKeys: new Map([[keyring.signingKey.keyId, keyring.publicKey]]),
    },
  )
  return { log, close: () => opened.close() }
}

describe('bulkLoadLog', () => {
  it.each([1, 2, 3, 7, 8, 9, 255, 256, 257, 1000])(
    'writes %i leaves the registry self-check accepts, with a genuine checkpoint',
    async (count) => {
      const { config, keyring, path } = await scratchRegistry()
      const sizes = Array.from({ length: count }, (_, i) => i + 1)
      const loaded = bulkLoadLog({
        path,
        count,
        authority: AUTHORITY,
        checkpoint: { logId: LOG_ID, key: keyring.signingKey },
        rootsAt: sizes,
      })

      const reference = new MemoryMerkleTree()
      for (let i = 0; i < count; i++)
        reference.appendLeaf(new TextEncoder().encode(syntheticLeafJson(i, count, AUTHORITY)))
      expect(loaded.root).toEqual(reference.computeRoot())
      for (const size of sizes) expect(loaded.rootsAt.get(size)).toEqual(reference.computeRoot(size))

      const { log, close } = await openLog(config)
      try {
        expect(await log.selfCheck('since-checkpoint')).toEqual({
          ok: true,
          treeSize: count,
          checkpointTreeSize: count,
        })
        expect(await log.selfCheck('full')).toEqual({ ok: true, treeSize: count, checkpointTreeSize: count })
        const { checkpoint } = await log.currentCheckpoint()
        expect(checkpoint.root_hash).toBe(formatSha256(reference.computeRoot()))
        expect(await log.rootHashAt(Math.ceil(count / 2))).toBe(
          formatSha256(reference.computeRoot(Math.ceil(count / 2))),
        )
      } finally {
        await close()
      }

      // The stored checkpoint is signed by the registry's receipt key over the true root.
      const db = new DatabaseSync(path)
      const row = db.prepare('select checkpoint_json from log_checkpoint where tree_size = ?').get(count) as {
        checkpoint_json: string
      }
      db.close()
      const stored = JSON.parse(row.checkpoint_json)
      expect(parseSha256(stored.root_hash)).toEqual(reference.computeRoot())
      expect(() =>
        verifyReceiptSignature(computeCheckpointHash(stored), stored.signature, {
          algorithm: 'ed25519',
          publicKey: keyring.publicKey,
        }),
      ).not.toThrow()
      // The registry expects WAL mode back.
      const reopened = new DatabaseSync(path)
      expect(reopened.prepare('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' })
      reopened.close()
    },
  )

  it('gives leaves distinct texts and refuses a log that already has leaves or sizes out of range', async () => {
    expect(syntheticLeafJson(1, 10, AUTHORITY)).not.toBe(syntheticLeafJson(2, 10, AUTHORITY))
    const { path } = await scratchRegistry()
    expect(() => bulkLoadLog({ path, count: 4, authority: AUTHORITY, rootsAt: [5] })).toThrow(RangeError)
    bulkLoadLog({ path, count: 4, authority: AUTHORITY })
    expect(() => bulkLoadLog({ path, count: 4, authority: AUTHORITY })).toThrow(/already holds 4 leaves/)
  })

  it('a self-check catches a tampered loaded node (the loader writes what the check compares)', async () => {
    const { config, path } = await scratchRegistry()
    bulkLoadLog({ path, count: 64, authority: AUTHORITY })
    const db = new DatabaseSync(path)
    db.prepare('update log_node set hash = ? where pos = ?').run(new Uint8Array(32), logNodePosition(2, 3))
    db.close()
    const { log, close } = await openLog(config)
    try {
      expect(await log.selfCheck('full')).toMatchObject({ ok: false })
    } finally {
      await close()
    }
  })
})

/**
 * The registry's node-cache warm-up (TransparencyLog.warmNodeCache) over a loaded tree: it must read every
 * complete node of the resident levels (all of them in a 1,000-leaf tree) into the cache proofs are served from.
 */
describe('TransparencyLog.warmNodeCache', () => {
  const COUNT = 1000
  /** An inclusion proof for leaf 0 (its path's level-1 node is (1, 1)), checked against the true root. */
  const leaf0Verifies = async (log: TransparencyLog, root: Uint8Array) => {
    const body = JSON.parse((await log.inclusionByIndex(0, { did: null, tenant: 'default' }, undefined)).json) as {
      inclusion_path: string[]
    }
    try {
      verifyInclusionProof({
        leafHash: computeLeafHash(new TextEncoder().encode(syntheticLeafJson(0, COUNT, AUTHORITY))),
        leafIndex: 0,
        treeSize: COUNT,
        inclusionPath: body.inclusion_path.map(parseSha256),
        rootHash: root,
      })
      return true
    } catch {
      return false
    }
  }
  const loadAndTamper = async (warm: (log: TransparencyLog) => Promise<number>) => {
    const { config, keyring, path } = await scratchRegistry()
    const loaded = bulkLoadLog({
      path,
      count: COUNT,
      authority: AUTHORITY,
      checkpoint: { logId: LOG_ID, key: keyring.signingKey },
    })
    const { log, close } = await openLog(config)
    try {
      expect((await log.selfCheck('since-checkpoint')).ok).toBe(true)
      const read = await warm(log)
      // Storage changes under the cache: only a node already cached keeps the proof right.
      const db = new DatabaseSync(path)
      db.prepare('update log_node set hash = zeroblob(32) where pos = ?').run(logNodePosition(1, 1))
      db.close()
      return { read, verifies: await leaf0Verifies(log, loaded.root), residentBytes: log.nodeCacheResidentBytes }
    } finally {
      await close()
    }
  }

  it('reads every node of the resident levels into the cache proofs are served from', async () => {
    const warmed = await loadAndTamper((log) => log.warmNodeCache())
    expect(warmed.read).toBe(2 * COUNT - 6) // 2n - popcount(n) complete nodes; 1000 has six bits set
    expect(warmed.residentBytes).toBeGreaterThan(0)
    expect(warmed.verifies).toBe(true)
  })

  it('reads nothing once aborted, and the proof then reads the (tampered) stored node', async () => {
    const aborted = await loadAndTamper((log) => log.warmNodeCache(AbortSignal.abort()))
    expect(aborted.read).toBe(0)
    expect(aborted.verifies).toBe(false)
  })
})
