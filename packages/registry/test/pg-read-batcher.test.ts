/**
 * The coalesced publish-path lookups on PostgreSQL (src/store/pg-read-batcher.ts), against a real PostgreSQL
 * (ACDP_TEST_DATABASE_URL; skipped without it): lookups asked for in one turn share one statement, and each
 * caller gets exactly the rows the single-row statement would have given it.
 */
import { randomUUID } from 'node:crypto'
import { type Database, openPostgresTestSchema, testDatabaseUrl } from '@acdp/storage'
import { afterEach, describe, expect, it } from 'vitest'
import { toContextRow, toIdempotencyRecord } from '../src/store/rows.js'
import { migrateRegistryDatabase } from '../src/store/open-store.js'
import { PgReadBatcher } from '../src/store/pg-read-batcher.js'
import type { RegistryDatabase } from '../src/store/schema.js'
import type { IdempotencyRecord, NewContext } from '../src/store/store.js'

const url = testDatabaseUrl()

function record(tenantId: string, agentId: string, key: string, expiresAtMs: number): IdempotencyRecord {
  return {
    tenantId,
    agentId,
    idempotencyKey: key,
    contentHash: `sha256:${'c'.repeat(64)}`,
    signatureAlgorithm: 'ed25519',
    signatureKeyId: `${agentId}#key-1`,
    signatureValue: `${key}-signature`,
    ctxId: `acdp://registry.example.com/${randomUUID()}`,
    responseJson: `{"key":"${key}"}`,
    createdAtMs: 1_000,
    expiresAtMs,
  }
}

function revocation(agentId: string, tenantId = 'default'): NewContext {
  const ctxId = `acdp://registry.example.com/${randomUUID()}`
  return {
    ctxId,
    tenantId,
    lineageId: `lin:sha256:${'d'.repeat(64)}-${ctxId}`,
    version: 1,
    supersedes: null,
    agentId,
    contextType: 'key-revocation',
    visibility: 'public',
    audience: [],
    title: 'revocation',
    summary: null,
    description: null,
    domain: null,
    schemaUri: null,
    tags: [],
    derivedFrom: [],
    contentHash: `sha256:${'e'.repeat(64)}`,
    createdAt: '2026-01-01T00:00:00.000Z',
    createdAtMs: 0,
    expiresAtMs: null,
    dataPeriodStartMs: null,
    dataPeriodEndMs: null,
    bodyText: `{"revoked_by":"${agentId}","ctx":"${ctxId}"}`,
    registryReceipt: null,
    logLeaf: null,
  }
}

describe.skipIf(url === undefined)('PostgreSQL read batcher', () => {
  let database: Database<RegistryDatabase> | undefined
  afterEach(async () => {
    await database?.close()
    database = undefined
  })

  async function open(): Promise<Database<RegistryDatabase>> {
    database = (await openPostgresTestSchema(url as string)) as Database<RegistryDatabase>
    await migrateRegistryDatabase(database)
    return database
  }

  it('answers every lookup of one turn from one statement, each with its own rows', async () => {
    const db = (await open()).db
    const live = record('default', 'did:key:alice', 'k1', 10_000)
    const otherTenant = record('t2', 'did:key:alice', 'k1', 10_000)
    const expiring = record('default', 'did:key:bob', 'k2', 5_000)
    await db
      .insertInto('idempotency_record')
      .values(
        [live, otherTenant, expiring].map((r) => ({
          tenant_id: r.tenantId,
          agent_id: r.agentId,
          idempotency_key: r.idempotencyKey,
          content_hash: r.contentHash,
          signature_algorithm: r.signatureAlgorithm,
          signature_key_id: r.signatureKeyId,
          signature_value: r.signatureValue,
          ctx_id: r.ctxId,
          response_json: r.responseJson,
          created_at_ms: r.createdAtMs,
          expires_at_ms: r.expiresAtMs,
        })),
      )
      .execute()
    const alice = [revocation('did:key:alice'), revocation('did:key:alice', 't2')]
    const registry = revocation('did:web:registry.example.com')
    await db
      .insertInto('context')
      .values(
        [...alice, registry, { ...revocation('did:key:carol'), contextType: 'data_snapshot' }].map((c) =>
          toContextRow(c, null),
        ),
      )
      .execute()

    const batcher = new PgReadBatcher(db)
    let statements = 0
    const counted = new PgReadBatcher({
      executeQuery: (query: never) => {
        statements++
        return db.executeQuery(query)
      },
    } as never)
    const answers = await Promise.all([
      batcher.findIdempotencyRecord('default', 'did:key:alice', 'k1', 9_999),
      batcher.findIdempotencyRecord('t2', 'did:key:alice', 'k1', 9_999),
      batcher.findIdempotencyRecord('default', 'did:key:bob', 'k2', 5_000),
      batcher.findIdempotencyRecord('default', 'did:key:bob', 'k2', 4_999),
      batcher.findIdempotencyRecord('default', 'did:key:alice', 'missing', 0),
      batcher.listKeyRevocations(['did:key:alice', 'did:web:registry.example.com']),
      batcher.listKeyRevocations(['did:key:carol']),
      batcher.listKeyRevocations(['did:web:registry.example.com']),
    ])
    expect(
      answers.slice(0, 5).map((row) => (row === undefined ? undefined : toIdempotencyRecord(row as never))),
    ).toEqual([live, otherTenant, undefined, expiring, undefined])
    const ids = (rows: unknown) => (rows as Array<{ ctxId: string }>).map((r) => r.ctxId).sort()
    expect(ids(answers[5])).toEqual([...alice, registry].map((c) => c.ctxId).sort())
    expect(answers[6]).toEqual([])
    expect(answers[7]).toEqual([{ ctxId: registry.ctxId, agentId: registry.agentId, bodyText: registry.bodyText }])

    await Promise.all([
      counted.findIdempotencyRecord('default', 'did:key:alice', 'k1', 0),
      counted.listKeyRevocations(['did:key:alice']),
      counted.findIdempotencyRecord('default', 'did:key:bob', 'k2', 0),
    ])
    expect(statements).toBe(1)
    // A later turn is a later statement: it reads what was committed since.
    await counted.findIdempotencyRecord('default', 'did:key:alice', 'k1', 0)
    expect(statements).toBe(2)
  })

  it('fails every lookup of a statement that fails', async () => {
    const batcher = new PgReadBatcher({
      executeQuery: () => Promise.reject(new Error('connection lost')),
    } as never)
    const results = await Promise.allSettled([
      batcher.findIdempotencyRecord('default', 'did:key:a', 'k', 0),
      batcher.listKeyRevocations(['did:key:a']),
    ])
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected'])
  })
})
