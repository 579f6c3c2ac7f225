/**
 * The publish path's two point reads on PostgreSQL, coalesced: every publish looks up its idempotency record
 * (before any verification, RFC-ACDP-0003 §6.2) and the key revocations of its signer (RFC-ACDP-0014 §7; on a
 * shared store the lookup cannot be skipped, another instance may have stored one). One autocommit statement
 * each would cost every publish two round trips and two transactions; the lookups requested during one
 * event-loop turn go out instead as ONE statement (a union of both kinds), answered to each caller from its own
 * rows.
 *
 * Each lookup still reads committed state as of a moment after it was asked for (its statement runs after the
 * turn that asked), exactly as the single-row statement it replaces did: nothing is cached across statements.
 */
import type { Kysely } from 'kysely'
import { CompiledQuery, type Selectable } from 'kysely'
import type { IdempotencyRecordTable, RegistryDatabase } from './schema.js'
import type { StoredKeyRevocation } from './store.js'

/** Most lookups one statement carries (the rest go in the next): bounds the arrays and the answer. */
export const MAX_LOOKUPS_PER_STATEMENT = 512

interface IdempotencyLookup {
  kind: 'idempotency'
  tenantId: string
  agentId: string
  idempotencyKey: string
  nowMs: number
  resolve(row: Selectable<IdempotencyRecordTable> | undefined): void
  reject(error: unknown): void
}

interface RevocationLookup {
  kind: 'revocations'
  agentIds: readonly string[]
  resolve(rows: StoredKeyRevocation[]): void
  reject(error: unknown): void
}

type Lookup = IdempotencyLookup | RevocationLookup

/** One answer row: `q` 0 is an idempotency record (`n` its lookup's 1-based ordinal), 1 a stored revocation. */
interface LookupRow extends Selectable<IdempotencyRecordTable> {
  q: number
  n: number | string | null
  body_text: string | null
}

/**
 * The statement: idempotency records matched by (tenant, agent, key) and live at each lookup's own instant, then
 * every `key-revocation` signed by one of the asked DIDs. Arrays as parameters keep it one fixed text (prepared
 * once per connection) whatever the number of lookups.
 */
export const LOOKUP_SQL = `select 0 as q, k.n, i.tenant_id, i.agent_id, i.idempotency_key, i.content_hash,
    i.signature_algorithm, i.signature_key_id, i.signature_value, i.ctx_id, i.response_json, i.created_at_ms,
    i.expires_at_ms, null::text as body_text
  from unnest($1::text[], $2::text[], $3::text[], $4::bigint[]) with ordinality as k(tenant_id, agent_id, idempotency_key, now_ms, n)
  join idempotency_record i on i.tenant_id = k.tenant_id and i.agent_id = k.agent_id
    and i.idempotency_key = k.idempotency_key and i.expires_at_ms > k.now_ms
union all
select 1, null, null, c.agent_id, null, null, null, null, null, c.ctx_id, null, null, null, c.body_text
  from context c where c.context_type = 'key-revocation' and c.agent_id = any($5::text[])`

export class PgReadBatcher {
  readonly #db: Kysely<RegistryDatabase>
  #queue: Lookup[] = []
  #scheduled = false

  constructor(db: Kysely<RegistryDatabase>) {
    this.#db = db
  }

  /** The live idempotency record of (tenant, agent, key) at `nowMs`, as `findIdempotencyRecord` reads it. */
  findIdempotencyRecord(
    tenantId: string,
    agentId: string,
    idempotencyKey: string,
    nowMs: number,
  ): Promise<Selectable<IdempotencyRecordTable> | undefined> {
    return new Promise((resolve, reject) =>
      this.#enqueue({ kind: 'idempotency', tenantId, agentId, idempotencyKey, nowMs, resolve, reject }),
    )
  }

  /** Every stored `key-revocation` whose signer is one of `agentIds` (any order), as `listKeyRevocations`. */
  listKeyRevocations(agentIds: readonly string[]): Promise<StoredKeyRevocation[]> {
    return new Promise((resolve, reject) => this.#enqueue({ kind: 'revocations', agentIds, resolve, reject }))
  }

  #enqueue(lookup: Lookup): void {
    this.#queue.push(lookup)
    if (this.#scheduled) return
    this.#scheduled = true
    // After this turn's I/O callbacks: the lookups asked for in the same turn share the statement.
    setImmediate(() => {
      this.#scheduled = false
      const queue = this.#queue
      this.#queue = []
      for (let i = 0; i < queue.length; i += MAX_LOOKUPS_PER_STATEMENT) {
        void this.#run(queue.slice(i, i + MAX_LOOKUPS_PER_STATEMENT))
      }
    })
  }

  async #run(lookups: readonly Lookup[]): Promise<void> {
    const keyed: IdempotencyLookup[] = []
    const revocations: RevocationLookup[] = []
    for (const lookup of lookups) {
      if (lookup.kind === 'idempotency') keyed.push(lookup)
      else revocations.push(lookup)
    }
    const signers = [...new Set(revocations.flatMap((r) => r.agentIds))]
    let rows: LookupRow[]
    try {
      ;({ rows } = await this.#db.executeQuery<LookupRow>(
        CompiledQuery.raw(LOOKUP_SQL, [
          keyed.map((k) => k.tenantId),
          keyed.map((k) => k.agentId),
          keyed.map((k) => k.idempotencyKey),
          keyed.map((k) => k.nowMs),
          signers,
        ]),
      ))
    } catch (error) {
      for (const lookup of lookups) lookup.reject(error)
      return
    }
    const records = new Map<number, Selectable<IdempotencyRecordTable>>()
    const bySigner = new Map<string, StoredKeyRevocation[]>()
    for (const row of rows) {
      if (Number(row.q) === 0) {
        const { q: _q, n, body_text: _body, ...record } = row
        records.set(Number(n), record)
      } else {
        const list = bySigner.get(row.agent_id) ?? []
        list.push({ ctxId: row.ctx_id, agentId: row.agent_id, bodyText: row.body_text as string })
        bySigner.set(row.agent_id, list)
      }
    }
    keyed.forEach((lookup, i) => lookup.resolve(records.get(i + 1)))
    for (const lookup of revocations) {
      lookup.resolve([...new Set(lookup.agentIds)].flatMap((did) => bySigner.get(did) ?? []))
    }
  }
}
