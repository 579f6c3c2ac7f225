/**
 * Migration 0008 copies each leaf's context visibility facts onto its `log_leaf` row: leaves stored before it
 * are backfilled from `context`, a leaf without a context row keeps NULL facts (never echoed), and the inclusion
 * proof's leaf lookup answers from the leaf row alone, on both dialects.
 */
import { randomUUID } from 'node:crypto'
import { migrateToLatest, testDatabaseTargets } from '@acdp/storage'
import { describe, expect, it } from 'vitest'
import { createKyselyStore } from '../src/store/kysely-store.js'
import { REGISTRY_MIGRATION_TABLE, REGISTRY_MIGRATIONS } from '../src/store/migrations/index.js'
import { migrateRegistryDatabase } from '../src/store/open-store.js'

const AGENT = 'did:web:agents.example.com:alice'
const READER = 'did:web:agents.example.com:bob'

describe.each(testDatabaseTargets())('migration 0008 (log leaf facts) on $name', (target) => {
  it('backfills the facts of every logged context and leaves a leaf without a context unechoable', async () => {
    const database = await target.open()
    try {
      await migrateToLatest(database, [...REGISTRY_MIGRATIONS.filter((m) => m.name < '0008')], {
        table: REGISTRY_MIGRATION_TABLE,
      })
      const contexts = [
        { visibility: 'restricted', audience: [READER], tenant: 'tenant-a' },
        { visibility: 'public', audience: [], tenant: 'default' },
      ].map((c) => ({ ...c, ctxId: `acdp://registry.example.com/${randomUUID()}` }))
      for (const [i, c] of contexts.entries()) {
        await database.db
          .insertInto('context')
          .values({
            ctx_id: c.ctxId,
            tenant_id: c.tenant,
            lineage_id: `lin:sha256:${String(i).repeat(64)}`,
            version: 1,
            agent_id: AGENT,
            context_type: 'data_snapshot',
            visibility: c.visibility,
            audience_json: JSON.stringify(c.audience),
            title: 'before 0008',
            search_text: 'before 0008',
            content_hash: `sha256:${'b'.repeat(64)}`,
            created_at: '2026-01-01T00:00:00.000Z',
            created_at_ms: 1_767_225_600_000,
            body_text: '{}',
            leaf_index: i,
          } as never)
          .execute()
      }
      const leaves = [...contexts.map((c) => c.ctxId), `acdp://registry.example.com/${randomUUID()}`]
      for (const [i, ctxId] of leaves.entries()) {
        await database.db
          .insertInto('log_leaf')
          .values({ leaf_index: i, ctx_id: ctxId, leaf_json: `{"leaf":${i}}` } as never)
          .execute()
      }

      expect((await migrateRegistryDatabase(database)).applied).toEqual(
        REGISTRY_MIGRATIONS.filter((m) => m.name >= '0008').map((m) => m.name),
      )
      const store = createKyselyStore(database)
      expect(await store.log.findLeaf(0)).toEqual({
        leafIndex: 0,
        ctxId: leaves[0],
        leafJson: '{"leaf":0}',
        visibility: 'restricted',
        agentId: AGENT,
        audience: [READER],
        tenantId: 'tenant-a',
      })
      expect(await store.log.findLeaf(1)).toMatchObject({ visibility: 'public', audience: [], tenantId: 'default' })
      // No context row: no facts, so no leaf to echo (what the inner join on `context` answered before 0008).
      expect(await store.log.findLeaf(2)).toBeUndefined()
      expect(await store.log.findLeaf(3)).toBeUndefined()
      const raw = await database.db
        .selectFrom('log_leaf')
        .select(['leaf_index', 'tenant_id', 'visibility', 'agent_id', 'audience_json'])
        .orderBy('leaf_index')
        .execute()
      expect(raw.map((r) => [Number(r.leaf_index), r.tenant_id, r.visibility, r.agent_id, r.audience_json])).toEqual([
        [0, 'tenant-a', 'restricted', AGENT, JSON.stringify([READER])],
        [1, 'default', 'public', AGENT, '[]'],
        [2, null, null, null, null],
      ])
    } finally {
      await database.close()
    }
  })
})
