/**
 * Migration 0007 re-keys stored transparency-log nodes by post-order position: a log written under the 0002
 * layout `(level, idx)` must come out of the upgrade with every node at its new key, pass both start-up
 * self-checks against its signed checkpoint, prove inclusion and consistency, and keep appending. SQLite always,
 * PostgreSQL with ACDP_TEST_DATABASE_URL.
 */
import {
  buildCheckpoint,
  computeLeafHash,
  formatLogId,
  MemoryMerkleTree,
  planConsistencyProof,
  planInclusionProof,
  planTreeRoot,
  readProof,
  signCheckpoint,
  verifyConsistencyProof,
  verifyInclusionProof,
} from '@acdp/protocol'
import { migrateToLatest, testDatabaseTargets } from '@acdp/storage'
import { sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import { resolveConfig } from '../src/core/config.js'
import { registryDidOf } from '../src/core/registry-did.js'
import { loadReceiptKeyring } from '../src/receipts/receipt-keyring.js'
import { TransparencyLog } from '../src/log/transparency-log.js'
import { createKyselyStore } from '../src/store/kysely-store.js'
import { logNodePosition, logNodePositionSql } from '../src/store/log-node-position.js'
import { REGISTRY_MIGRATION_TABLE, REGISTRY_MIGRATIONS } from '../src/store/migrations/index.js'
import { migrateRegistryDatabase } from '../src/store/open-store.js'

const AUTHORITY = 'layout.registry.test'
const LOG_ID = formatLogId(registryDidOf(AUTHORITY), '1')
const encoder = new TextEncoder()

/** Every node (level, idx) of the complete perfect subtrees of a `size`-leaf tree. */
function everyNode(size: number): Array<{ level: number; index: number }> {
  const nodes = []
  for (let level = 0; 2 ** level <= size; level++) {
    for (let index = 0; index < Math.floor(size / 2 ** level); index++) nodes.push({ level, index })
  }
  return nodes
}

describe('logNodePosition', () => {
  it('numbers the nodes in the order appends complete them (post-order), with no gap', () => {
    const tree = new MemoryMerkleTree()
    let next = 0
    for (let leaf = 0; leaf < 4100; leaf++) {
      // Appending leaf m completes (0, m), then one node per trailing one bit of m.
      expect(logNodePosition(0, leaf)).toBe(next++)
      let level = 0
      let index = leaf
      while (index % 2 === 1) {
        level += 1
        index = (index - 1) / 2
        expect(logNodePosition(level, index)).toBe(next++)
      }
      tree.appendLeafHash(computeLeafHash(encoder.encode(String(leaf))))
    }
    expect(everyNode(4100).length).toBe(next)
  })

  it('is exact beyond 32 bits, and the migration SQL computes the same number', async () => {
    // Leaf 2^40 follows 2^40 leaves, which hold 2^41 − 1 nodes.
    expect(logNodePosition(0, 2 ** 40)).toBe(2 ** 41 - 1)
    expect(logNodePosition(40, 0)).toBe(2 ** 41 - 2)
    const cases = [
      [0, 0],
      [3, 5],
      [0, 2 ** 33 + 7],
      [1, 2 ** 40 - 1],
      [17, 123_456_789],
      [45, 3],
    ] as const
    for (const target of testDatabaseTargets()) {
      const database = await target.open()
      try {
        for (const [level, index] of cases) {
          const expression = logNodePositionSql(`cast(${level} as bigint)`, `cast(${index} as bigint)`)
          const { rows } = await sql<{ pos: number | string }>`select ${sql.raw(expression)} as pos`.execute(
            database.db,
          )
          expect(Number(rows[0]?.pos), `${target.name} (${level}, ${index})`).toBe(logNodePosition(level, index))
        }
      } finally {
        await database.close()
      }
    }
  })
})

describe.each(testDatabaseTargets())('migration 0007 on $name', (target) => {
  it('converts a 0002-layout log: self-checks pass, proofs verify, appends continue', async () => {
    const config = resolveConfig({
      registry: { authority: AUTHORITY },
      receipt: { signing_key_seed_b64: Buffer.alloc(32, 9).toString('base64') },
      log: { enabled: true },
    })
    const keyring = loadReceiptKeyring(config)
    if (!keyring) throw new Error('no receipt key')
    const database = await target.open()
    try {
      await migrateToLatest(
        database,
        REGISTRY_MIGRATIONS.filter((m) => m.name < '0007'),
        { table: REGISTRY_MIGRATION_TABLE },
      )
      // A log of 300 leaves as the 0002 layout stored it, with a checkpoint signed at 256.
      const size = 300
      const reference = new MemoryMerkleTree()
      for (let i = 0; i < size; i++) {
        const leafJson = JSON.stringify({ leaf: i, origin_registry: AUTHORITY })
        reference.appendLeaf(encoder.encode(leafJson))
        await sql`insert into log_leaf (leaf_index, ctx_id, leaf_json)
          values (${i}, ${`acdp://${AUTHORITY}/leaf-${i}`}, ${leafJson})`.execute(database.db)
      }
      for (const { level, index } of everyNode(size)) {
        const [hash] = reference.readNodes([{ level, index }])
        await sql`insert into log_node (level, idx, hash) values (${level}, ${index}, ${hash})`.execute(database.db)
      }
      await sql`update log_state set tree_size = ${size} where id = 1`.execute(database.db)
      const checkpoint = signCheckpoint(
        buildCheckpoint({ logId: LOG_ID, treeSize: 256, rootHash: reference.computeRoot(256), timestamp: new Date() }),
        keyring.signingKey,
      )
      await database.db
        .insertInto('log_checkpoint')
        .values({ tree_size: 256, checkpoint_json: JSON.stringify(checkpoint) })
        .execute()

      expect((await migrateRegistryDatabase(database)).applied).toEqual(
        REGISTRY_MIGRATIONS.filter((m) => m.name >= '0007').map((m) => m.name),
      )
      // context_expires holds only contexts with an expiry; SQLite keeps no log_state row any more.
      const definition =
        target.name === 'sqlite'
          ? sql<{ text: string }>`select sql as text from sqlite_schema where name = 'context_expires'`
          : sql<{ text: string }>`select indexdef as text from pg_indexes
              where indexname = 'context_expires' and schemaname = current_schema()`
      expect((await definition.execute(database.db)).rows[0]?.text).toMatch(/where.*expires_at_ms.* is not null/i)
      const stateTables = await sql<{ n: number | string }>`select count(*) as n from log_state`
        .execute(database.db)
        .then(
          () => 1,
          () => 0,
        )
      expect(stateTables).toBe(target.name === 'sqlite' ? 0 : 1)

      const store = createKyselyStore(database)
      expect(await store.log.readTreeSize()).toBe(size)
      // Every node is at its post-order key, with its hash unchanged.
      const all = everyNode(size)
      expect(await store.log.readNodes(all)).toEqual(reference.readNodes(all))
      const { rows } = await sql<{ n: number | string }>`select count(*) as n from log_node`.execute(database.db)
      expect(Number(rows[0]?.n)).toBe(all.length)

      const log = new TransparencyLog(
        { store, clock: () => new Date() },
        {
          logId: LOG_ID,
          key: keyring.signingKey,
          checkpointKeys: new Map([[keyring.signingKey.keyId, keyring.publicKey]]),
        },
      )
      expect(await log.selfCheck('full')).toEqual({ ok: true, treeSize: size, checkpointTreeSize: 256 })
      expect(await log.selfCheck('since-checkpoint')).toEqual({ ok: true, treeSize: size, checkpointTreeSize: 256 })

      const root = reference.computeRoot()
      const [root256] = await readProof(store.log, planTreeRoot(256))
      expect(root256).toEqual(reference.computeRoot(256))
      for (const leafIndex of [0, 1, 128, 255, 256, 299]) {
        const inclusionPath = await readProof(store.log, planInclusionProof(leafIndex, size))
        const [leafHash] = reference.readNodes([{ level: 0, index: leafIndex }])
        expect(() =>
          verifyInclusionProof({
            leafHash: leafHash as Uint8Array,
            leafIndex,
            treeSize: size,
            inclusionPath,
            rootHash: root,
          }),
        ).not.toThrow()
      }
      const consistency = await readProof(store.log, planConsistencyProof(256, size))
      expect(() =>
        verifyConsistencyProof({
          firstTreeSize: 256,
          secondTreeSize: size,
          firstRootHash: reference.computeRoot(256),
          secondRootHash: root,
          consistencyPath: consistency,
        }),
      ).not.toThrow()

      // A publish after the upgrade appends leaf 300 and its nodes at their post-order keys.
      const leafJson = JSON.stringify({ leaf: size, origin_registry: AUTHORITY })
      const leafHash = computeLeafHash(encoder.encode(leafJson))
      const published = await store.insertContext(
        {
          ctxId: `acdp://${AUTHORITY}/after-0007`,
          tenantId: 'default',
          lineageId: `lin:sha256:${'c'.repeat(64)}`,
          version: 1,
          supersedes: null,
          agentId: 'did:web:producer.test',
          contextType: 'data_snapshot',
          visibility: 'public',
          audience: [],
          title: 'after 0007',
          summary: null,
          description: null,
          domain: null,
          schemaUri: null,
          tags: [],
          derivedFrom: [],
          contentHash: `sha256:${'d'.repeat(64)}`,
          createdAt: '2026-11-24T00:00:00.000Z',
          createdAtMs: 1_795_478_400_000,
          expiresAtMs: null,
          dataPeriodStartMs: null,
          dataPeriodEndMs: null,
          bodyText: '{}',
          registryReceipt: null,
          logLeaf: { leafJson, leafHash },
        },
        undefined,
      )
      expect(published).toEqual({ ok: true, leafIndex: size })
      reference.appendLeafHash(leafHash)
      expect(await store.log.readTreeSize()).toBe(size + 1)
      expect(await log.selfCheck('full')).toEqual({ ok: true, treeSize: size + 1, checkpointTreeSize: 256 })
      const [rootAfter] = await readProof(store.log, planTreeRoot(size + 1))
      expect(rootAfter).toEqual(reference.computeRoot())
      expect(await store.log.findLeaf(size)).toMatchObject({ leafIndex: size, leafJson })
      expect(await store.log.readNodes([{ level: 0, index: size }])).toEqual([leafHash])
      expect((await store.log.listLeaves(size, size + 1)).map((l) => l.leafHash)).toEqual([leafHash])
    } finally {
      await database.close()
    }
  })
})
