/**
 * Group commit for publishes on PostgreSQL.
 *
 * Every logged publish takes the `log_state` row lock to get its leaf index (RFC-ACDP-0012 §7.1: indexes dense,
 * in commit order), and holds it until its COMMIT: one publish transaction per publish serializes every
 * publisher behind one row, each paying its own round trips and WAL flush while the others wait. So the
 * publishes that arrive while a batch is being written queue, and the next batch writes all of them in ONE
 * transaction with ONE sequencing step:
 *
 *   1. mark the predecessors superseded (one statement, rows locked in ctx_id order), dropping the publishes
 *      whose target is no longer a head (`already_superseded`);
 *   2. claim the idempotency keys (one upsert, rows locked in key order), dropping the publishes whose key is
 *      live (`idempotency_key`) and undoing their step-1 update exactly;
 *   3–4. ONE statement (pg-batch-statements.ts): take the batch's leaf indexes with one `log_state` update (the
 *      lock taken last, after every row lock the batch needs, so two instances' batches never wait on each other
 *      in a cycle) and insert the contexts, their side rows, leaves and — when this writer appended the last
 *      leaves and so knows the log's right edge — the Merkle nodes; otherwise the nodes follow from the stored
 *      edge, read once at the batch's first index;
 *   5. COMMIT, then answer every publish of the batch.
 *
 * Every statement here is one fixed text whatever the batch's size, sent as a named prepared statement.
 *
 * A conflict fails only its own publish: it is decided by the statements' RETURNING rows, never by an error, so
 * the rest of the batch commits. Two publishes of one batch that would decide each other's conflict (the same
 * idempotency key, or the same predecessor) are not put in the same batch: the later one waits for the next, where
 * it meets the committed state and gets its answer as it would have one publish at a time. An unexpected
 * statement error rolls the batch back and every publish of it is redone alone in its own transaction (the
 * per-publish path, `insertInTransaction`), so the error fails the publish that causes it only. A failed COMMIT
 * (or a lost connection) fails every publish of the batch: nothing of it is acknowledged.
 *
 * The guarantees are those of one transaction per publish: a publish is acknowledged only after the COMMIT that
 * stored its context, receipt (a column of the context row) and leaf; a rolled-back batch leaves no leaf and
 * moves no tree size; several instances sharing the database serialize their batches on the `log_state` row.
 */
import { type Database, isUniqueViolation } from '@acdp/storage'
import type { Kysely, Transaction } from 'kysely'
import type { CompiledStatements } from './compiled-statements.js'
import { LogFrontier } from './log-frontier.js'
import { logNodePosition } from './log-node-position.js'
import {
  appendBatchStatement,
  claimIdempotencyKeysStatement,
  findLogNodesStatement,
  insertLogNodesStatement,
  PG_BATCH_TEXTS,
} from './pg-batch-statements.js'
import { fromIdempotencyRecord } from './rows.js'
import type { RegistryDatabase } from './schema.js'
import type { IdempotencyRecord, InsertContextResult, NewContext } from './store.js'

/** Most publishes one transaction carries; the rest of a longer queue goes into the next one. */
export const MAX_PG_PUBLISHES_PER_TRANSACTION = 256

export interface PgPublishWriterOptions {
  /** The per-publish transaction: the fallback after an unexpected error inside a batch. */
  insertOne(context: NewContext, idempotency: IdempotencyRecord | undefined): Promise<InsertContextResult>
  /**
   * Runs inside the batch's transaction after its last statement, before COMMIT. Tests use it to fail or kill a
   * batch at its most complete point; an error here fails every publish of the batch (nothing is redone).
   */
  beforeCommit?: (tx: Transaction<RegistryDatabase>) => Promise<void>
}

interface PendingPublish {
  context: NewContext
  idempotency: IdempotencyRecord | undefined
  resolve(result: InsertContextResult): void
  reject(error: unknown): void
}

const ALREADY_SUPERSEDED: InsertContextResult = { ok: false, conflict: 'already_superseded' }
const KEY_TAKEN: InsertContextResult = { ok: false, conflict: 'idempotency_key' }

/** Thrown by the before-commit hook's wrapper so a hook error is not mistaken for a statement error. */
class CommitStageError extends Error {
  constructor(readonly reason: unknown) {
    super('the batch failed before its commit')
  }
}

const keyOf = (r: IdempotencyRecord) => JSON.stringify([r.tenantId, r.agentId, r.idempotencyKey])

export class PgPublishWriter {
  readonly #db: Kysely<RegistryDatabase>
  readonly #statements: CompiledStatements
  readonly #options: PgPublishWriterOptions
  #queue: PendingPublish[] = []
  #writing = false
  /** The log's right edge after this writer's last committed batch; another instance's appends invalidate it. */
  #frontier: LogFrontier | undefined

  constructor(database: Database<RegistryDatabase>, statements: CompiledStatements, options: PgPublishWriterOptions) {
    if (database.kind !== 'postgres') throw new Error('the PostgreSQL publish writer needs a PostgreSQL database')
    this.#db = database.db
    this.#statements = statements
    this.#options = options
    for (const text of PG_BATCH_TEXTS) database.namedStatements?.add(text)
    database.namedStatements?.add(statements.markSupersededBatch([]).sql)
    database.namedStatements?.add(statements.unmarkSupersededBatch([]).sql)
  }

  /** Queues a publish for the next batch; same contract as `RegistryStore.insertContext`. */
  write(context: NewContext, idempotency: IdempotencyRecord | undefined): Promise<InsertContextResult> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ context, idempotency, resolve, reject })
      if (!this.#writing) {
        this.#writing = true
        // After this turn's I/O callbacks: the publishes read in the same turn join the first batch.
        setImmediate(() => void this.#drain())
      }
    })
  }

  /** Writes batches until the queue is empty; one batch in flight at a time (they would serialize anyway). */
  async #drain(): Promise<void> {
    try {
      while (this.#queue.length > 0) {
        const batch = this.#takeBatch()
        await this.#writeBatch(batch)
      }
    } finally {
      this.#writing = false
    }
  }

  /**
   * The next batch, in arrival order: at most MAX_PG_PUBLISHES_PER_TRANSACTION publishes, and no two sharing an
   * idempotency key or a predecessor (the later stays queued, in order, for a later batch).
   */
  #takeBatch(): PendingPublish[] {
    const batch: PendingPublish[] = []
    const rest: PendingPublish[] = []
    const keys = new Set<string>()
    const targets = new Set<string>()
    for (const pending of this.#queue) {
      const key = pending.idempotency ? keyOf(pending.idempotency) : undefined
      const target = pending.context.supersedes
      if (
        batch.length >= MAX_PG_PUBLISHES_PER_TRANSACTION ||
        (key !== undefined && keys.has(key)) ||
        (target !== null && targets.has(target))
      ) {
        rest.push(pending)
        continue
      }
      if (key !== undefined) keys.add(key)
      if (target !== null) targets.add(target)
      batch.push(pending)
    }
    this.#queue = rest
    return batch
  }

  async #writeBatch(batch: PendingPublish[]): Promise<void> {
    let outcomes: InsertContextResult[]
    let frontier: LogFrontier | undefined
    try {
      ;({ outcomes, frontier } = await this.#transaction(batch))
    } catch (error) {
      this.#frontier = undefined
      if (error instanceof CommitStageError || !isStatementError(error)) {
        // The batch got as far as its COMMIT, or the connection failed: nothing of it is acknowledged.
        const reason = error instanceof CommitStageError ? error.reason : error
        for (const pending of batch) pending.reject(reason)
        return
      }
      // A statement refused one of the publishes (rolled back with the rest): redo each alone, so that error
      // fails its own publish only. Sequential, in arrival order, as the batch would have committed them.
      for (const pending of batch) {
        try {
          pending.resolve(await this.#options.insertOne(pending.context, pending.idempotency))
        } catch (oneError) {
          pending.reject(oneError)
        }
      }
      return
    }
    this.#frontier = frontier
    batch.forEach((pending, i) => pending.resolve(outcomes[i] as InsertContextResult))
  }

  /** The batch's transaction; resolves after COMMIT with each publish's outcome and the log's new edge. */
  async #transaction(
    batch: readonly PendingPublish[],
  ): Promise<{ outcomes: InsertContextResult[]; frontier: LogFrontier | undefined }> {
    const s = this.#statements
    return this.#db.transaction().execute(async (tx) => {
      const outcomes: Array<InsertContextResult | undefined> = batch.map(() => undefined)
      const leafIndexes = new Map<number, number>()

      // 1. Predecessors, locked in ctx_id order.
      const superseding = batch.flatMap((p, i) => (p.context.supersedes === null ? [] : [i]))
      if (superseding.length > 0) {
        const pairs = superseding.map((i) => [batch[i]!.context.supersedes as string, batch[i]!.context.ctxId] as const)
        const { rows } = await tx.executeQuery<{ ctx_id: string }>(s.markSupersededBatch(pairs))
        const marked = new Set(rows.map((r) => r.ctx_id))
        for (const i of superseding) {
          if (!marked.has(batch[i]!.context.supersedes as string)) outcomes[i] = ALREADY_SUPERSEDED
        }
      }

      // 2. Idempotency keys, claimed in key order.
      const claiming = batch
        .flatMap((p, i) => (p.idempotency === undefined || outcomes[i] !== undefined ? [] : [i]))
        .sort((a, b) => compare(keyOf(batch[a]!.idempotency!), keyOf(batch[b]!.idempotency!)))
      if (claiming.length > 0) {
        const records = claiming.map((i) => fromIdempotencyRecord(batch[i]!.idempotency as IdempotencyRecord))
        const { rows } = await tx.executeQuery<{ tenant_id: string; agent_id: string; idempotency_key: string }>(
          claimIdempotencyKeysStatement(records),
        )
        const claimed = new Set(rows.map((r) => JSON.stringify([r.tenant_id, r.agent_id, r.idempotency_key])))
        const undo: Array<[string, string]> = []
        for (const i of claiming) {
          const { context, idempotency } = batch[i]!
          if (claimed.has(keyOf(idempotency!))) continue
          outcomes[i] = KEY_TAKEN
          if (context.supersedes !== null) undo.push([context.supersedes, context.ctxId])
        }
        // Exact: the predecessor was a head (superseded_by null) when this transaction marked it.
        if (undo.length > 0) await tx.executeQuery(s.unmarkSupersededBatch(undo))
      }

      // 3–4. One statement: the batch's sequencing step (the last lock taken), the contexts (each with its
      // receipt), side rows, leaves and, when this writer appended the log's last leaves, the Merkle nodes.
      const written = batch.flatMap((p, i) => (outcomes[i] === undefined ? [i] : []))
      const logged = written.filter((i) => batch[i]!.context.logLeaf !== null)
      let frontier = this.#frontier
      if (written.length > 0) {
        const ordinals = new Map(logged.map((i, k) => [i, k]))
        const known = logged.length > 0 ? frontier : undefined
        const planned =
          known === undefined
            ? undefined
            : appendNodes(
                known,
                logged.map((i) => batch[i]!.context),
              )
        const { rows } = await tx.executeQuery<{ tree_size: number | string | null }>(
          appendBatchStatement({
            contexts: written.map((i) => ({ context: batch[i]!.context, logOrdinal: ordinals.get(i) ?? null })),
            logged: logged.length,
            nodes: planned?.nodes ?? [],
            expectedSize: known?.size,
          }),
        )
        if (logged.length > 0) {
          const size = rows[0]?.tree_size
          if (size === null || size === undefined) {
            throw new Error('log_state row is missing (migration 0002 not applied?)')
          }
          const first = Number(size) - logged.length
          logged.forEach((i, k) => leafIndexes.set(i, first + k))
          if (planned !== undefined && known?.size === first) {
            frontier = planned.next
          } else {
            // Another instance appended since this writer's last batch (or this is its first): the nodes go in
            // now, from the stored edge at the batch's first index.
            const appended = appendNodes(
              await readFrontier(tx, first),
              logged.map((i) => batch[i]!.context),
            )
            await tx.executeQuery(insertLogNodesStatement(appended.nodes))
            frontier = appended.next
          }
        }
      }
      for (const i of written) {
        const leafIndex = leafIndexes.get(i) ?? null
        outcomes[i] = { ok: true, leafIndex }
      }

      if (this.#options.beforeCommit) {
        try {
          await this.#options.beforeCommit(tx)
        } catch (error) {
          throw new CommitStageError(error)
        }
      }
      return { outcomes: outcomes as InsertContextResult[], frontier }
    })
  }
}

/** The right edge of the stored log of `size` leaves (inside the transaction that holds the log_state lock). */
async function readFrontier(tx: Transaction<RegistryDatabase>, size: number): Promise<LogFrontier> {
  const addresses = LogFrontier.addresses(size)
  if (addresses.length === 0) return LogFrontier.fromNodes(size, [])
  const positions = addresses.map(({ level, index }) => logNodePosition(level, index))
  const { rows } = await tx.executeQuery<{ pos: number | string; hash: Uint8Array }>(findLogNodesStatement(positions))
  const byPos = new Map(rows.map((r) => [Number(r.pos), new Uint8Array(r.hash)]))
  return LogFrontier.fromNodes(
    size,
    positions.map((pos, i) => {
      const hash = byPos.get(pos)
      if (hash === undefined) throw new Error(`log node (${addresses[i]!.level}, ${addresses[i]!.index}) is missing`)
      return hash
    }),
  )
}

/** The nodes `contexts`' leaves add to the log whose edge is `frontier`, in order, and the edge after them. */
function appendNodes(
  frontier: LogFrontier,
  contexts: readonly NewContext[],
): { nodes: Array<{ pos: number; hash: Uint8Array }>; next: LogFrontier } {
  const nodes: Array<{ pos: number; hash: Uint8Array }> = []
  let next = frontier
  for (const context of contexts) {
    const step = next.append(context.logLeaf!.leafHash)
    for (const node of step.appended) nodes.push({ pos: logNodePosition(node.level, node.index), hash: node.hash })
    next = step.next
  }
  return { nodes, next }
}

/**
 * True for an error PostgreSQL raised about a statement (it carries a SQLSTATE and the transaction rolled back
 * cleanly), as opposed to a lost connection or a client-side failure.
 */
function isStatementError(error: unknown): boolean {
  if (isUniqueViolation(error)) return true
  const code = (error as { code?: unknown } | null)?.code
  // Class 08 (connection exception) and 57P (operator intervention: terminated, shutting down) are not the
  // statement's doing; every other five-character SQLSTATE is.
  return typeof code === 'string' && code.length === 5 && !code.startsWith('08') && !code.startsWith('57P')
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}
