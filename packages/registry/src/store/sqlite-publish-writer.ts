/**
 * Group commit for publishes on embedded SQLite.
 *
 * Every SQLite commit writes each page it dirtied to the WAL, and consecutive publishes dirty many of the same
 * pages (the `context` table's last page, the append-ordered indexes, the upper levels of every B-tree). So the
 * publishes that reach the store in one event-loop turn are written in ONE transaction. A conflict or an error
 * fails its own publish only: the batch is first written straight through, and if any publish of it is refused
 * or fails, that attempt is rolled back and the batch is redone with each publish inside its own SAVEPOINT, so
 * the refused one rolls back alone and the others commit. Nothing resolves before the COMMIT, so "durable once
 * the promise resolves" holds for every publish of the batch. A publish's receipt and transparency-log leaf are
 * written with its context row (inside its savepoint on a redo), so they commit or roll back with it.
 *
 * The transaction runs as raw prepared statements on the connection Kysely also uses, from BEGIN IMMEDIATE to
 * COMMIT without an `await`: no other JavaScript can run a statement inside it. That is safe only because the
 * registry never holds a Kysely transaction open on that connection (@acdp/storage `Database.sqlite`): on SQLite
 * every registry write is either this writer's transaction or a single autocommit statement, and migrations
 * finish before the store is created. If a transaction is nevertheless open when a batch starts, the batch is
 * refused rather than mixed into it.
 */
import { isUniqueViolation, type WriterGate } from '@acdp/storage'
import type { CompiledStatements } from './compiled-statements.js'
import { SqliteLogFrontier } from './log-append.js'
import type { StoredMerkleNode } from '@acdp/protocol'
import { fromIdempotencyRecord, toContextRow } from './rows.js'
import type { SqliteStatements } from './sqlite-statements.js'
import type { IdempotencyRecord, InsertContextResult, NewContext } from './store.js'

/**
 * How long a batch waits for the WAL checkpoint worker to release the writer lock before going ahead anyway (and
 * meeting SQLite's busy handler): longer than any hold the worker's policy allows (a TRUNCATE's reader wait is
 * capped at 1 s), so it only matters if the worker died holding the gate.
 */
const GATE_TIMEOUT_MS = 5000

/** Most publishes one transaction carries; the rest of a longer queue goes into the next one. */
export const MAX_PUBLISHES_PER_TRANSACTION = 256

interface PendingPublish {
  context: NewContext
  idempotency: IdempotencyRecord | undefined
  resolve(result: InsertContextResult): void
  reject(error: unknown): void
}

/** A publish's own outcome inside a batch; `error` fails that publish only. */
type Outcome = InsertContextResult | { error: unknown }

const ALREADY_SUPERSEDED: InsertContextResult = { ok: false, conflict: 'already_superseded' }
const KEY_TAKEN: InsertContextResult = { ok: false, conflict: 'idempotency_key' }
const WRITTEN: InsertContextResult = { ok: true, leafIndex: null }

export class SqlitePublishWriter {
  readonly #sqlite: SqliteStatements
  readonly #statements: CompiledStatements
  #queue: PendingPublish[] = []
  #scheduled = false
  /** The log's right edge, loaded on the first logged publish; dropped whenever a transaction fails. */
  #log: SqliteLogFrontier | undefined
  /** The log's size as of this writer's last COMMIT; undefined until a logged publish commits or after a failure. */
  #committedTreeSize: number | undefined

  readonly #gate: WriterGate | undefined

  /**
   * `sqlite` wraps the connection the store's Kysely instance uses; `statements` are compiled for SQLite; `gate`
   * (file databases) is the checkpoint worker's writer gate, so a batch waits for a checkpoint's writer-lock hold
   * with the event loop free instead of sleeping in SQLite's busy handler.
   */
  constructor(sqlite: SqliteStatements, statements: CompiledStatements, gate?: WriterGate) {
    this.#sqlite = sqlite
    this.#statements = statements
    this.#gate = gate
  }

  /**
   * The transparency log's committed tree size, known without a read once a logged publish has committed: this
   * writer is the only appender on a SQLite database (one instance per file; its frontier already relies on that),
   * and it is set right after COMMIT, before any publish of the batch is acknowledged. Undefined when unknown:
   * nothing logged since start, or the last transaction failed (the caller then reads the size from storage).
   */
  get committedTreeSize(): number | undefined {
    return this.#committedTreeSize
  }

  /** Queues a publish for the next group commit (this event-loop turn's); same contract as insertContext. */
  write(context: NewContext, idempotency: IdempotencyRecord | undefined): Promise<InsertContextResult> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ context, idempotency, resolve, reject })
      this.#schedule()
    })
  }

  #schedule(): void {
    if (this.#scheduled) return
    this.#scheduled = true
    // After the I/O callbacks of this turn: every publish whose request was read in it has reached the queue.
    setImmediate(() => this.#flush())
  }

  /** `force`: go ahead without the gate (it stayed raised past GATE_TIMEOUT_MS). */
  #flush(force = false): void {
    const gate = force ? undefined : this.#gate
    if (gate !== undefined && !gate.enter()) {
      // A checkpoint holds the writer lock: publishes keep queueing meanwhile and go in the batch after the hold.
      // `#scheduled` stays set while waiting, so the queue has one flush pending, never a second waiter.
      void gate.released(GATE_TIMEOUT_MS).then((released) => this.#flush(!released))
      return
    }
    this.#scheduled = false
    try {
      this.#commitBatch()
    } finally {
      gate?.leave()
    }
  }

  #commitBatch(): void {
    const batch =
      this.#queue.length <= MAX_PUBLISHES_PER_TRANSACTION
        ? this.#queue
        : this.#queue.slice(0, MAX_PUBLISHES_PER_TRANSACTION)
    this.#queue =
      this.#queue.length <= MAX_PUBLISHES_PER_TRANSACTION ? [] : this.#queue.slice(MAX_PUBLISHES_PER_TRANSACTION)
    if (this.#queue.length > 0) this.#schedule()

    const raw = this.#sqlite.raw
    if (!raw.isOpen || raw.isTransaction) {
      // Someone else's transaction is open on the connection (a bug elsewhere): leave it alone, write nothing.
      const error = new Error(
        raw.isOpen ? 'a transaction is already open on the registry database' : 'the registry database is closed',
      )
      for (const pending of batch) pending.reject(error)
      return
    }
    let outcomes: Outcome[] | undefined
    try {
      outcomes = this.#writeAll(batch)
      if (outcomes === undefined) {
        // One publish of the batch was refused or failed: redo it publish by publish, each in its savepoint.
        outcomes = []
        this.#sqlite.statement('BEGIN IMMEDIATE').run()
        for (const pending of batch) outcomes.push(this.#writeOne(pending))
      }
      this.#sqlite.statement('COMMIT').run()
      this.#committedTreeSize = this.#log?.size
    } catch (error) {
      this.#log = undefined
      this.#committedTreeSize = undefined
      // BEGIN or COMMIT failed, or an error ended the whole transaction: nothing of the batch is persisted.
      if (raw.isOpen && raw.isTransaction) {
        try {
          this.#sqlite.statement('ROLLBACK').run()
        } catch {
          // The rollback's own failure adds nothing: every publish of the batch is failed below either way.
        }
      }
      for (const pending of batch) pending.reject(error)
      return
    }
    const written = outcomes
    batch.forEach((pending, i) => {
      const outcome = written[i] as Outcome
      if ('error' in outcome) pending.reject(outcome.error)
      else pending.resolve(outcome)
    })
  }

  /**
   * The common case, every publish of the batch written: the whole batch in one transaction without a savepoint
   * per publish (a savepoint costs two statements and a copy of every page the publish touches first). Leaves the
   * transaction open and returns the outcomes; on the first refusal or error rolls it all back, drops the log
   * edge it advanced, and returns undefined so the caller redoes the batch with savepoints. Throws as BEGIN does.
   */
  #writeAll(batch: readonly PendingPublish[]): Outcome[] | undefined {
    this.#sqlite.statement('BEGIN IMMEDIATE').run()
    const outcomes: Outcome[] = []
    try {
      for (const pending of batch) {
        const { outcome, frontier } = this.#apply(pending)
        if (!outcome.ok) break
        if (frontier) this.#log?.advance(frontier)
        outcomes.push(outcome)
      }
    } catch {
      // Redone below with savepoints, where the error fails its own publish only (or recurs and fails them all).
    }
    if (outcomes.length === batch.length) return outcomes
    this.#log = undefined
    if (this.#sqlite.raw.isTransaction) this.#sqlite.statement('ROLLBACK').run()
    return undefined
  }

  /** One publish inside its savepoint. Throws only when the enclosing transaction itself is gone. */
  #writeOne(pending: PendingPublish): Outcome {
    this.#sqlite.statement('SAVEPOINT publish').run()
    try {
      const { outcome, frontier } = this.#apply(pending)
      if (!outcome.ok) this.#sqlite.statement('ROLLBACK TO publish').run()
      this.#sqlite.statement('RELEASE publish').run()
      // Only a released savepoint moves the log's edge: a rolled-back publish leaves no leaf and no index gap.
      if (frontier) this.#log?.advance(frontier)
      return outcome
    } catch (error) {
      if (!this.#sqlite.raw.isTransaction) throw error
      this.#sqlite.statement('ROLLBACK TO publish').run()
      this.#sqlite.statement('RELEASE publish').run()
      // The only unique column a fresh random ctx_id can collide on is `supersedes`.
      if (isUniqueViolation(error) && pending.context.supersedes !== null) return ALREADY_SUPERSEDED
      return { error }
    }
  }

  /** The publish transaction's statements (the same as the Kysely store's), in the same order. */
  #apply({ context, idempotency }: PendingPublish): { outcome: InsertContextResult; frontier?: StoredMerkleNode[] } {
    const s = this.#statements
    if (idempotency && this.#sqlite.run(s.claimIdempotencyKey(fromIdempotencyRecord(idempotency))) !== 1) {
      return { outcome: KEY_TAKEN }
    }
    if (context.supersedes !== null && this.#sqlite.run(s.markSuperseded(context.supersedes, context.ctxId)) !== 1) {
      return { outcome: ALREADY_SUPERSEDED }
    }
    // The receipt rides in the context row. The leaf index is the log's current size; the leaf is written last,
    // and the size only moves once the savepoint is released, so indexes stay dense.
    if (context.logLeaf !== null && this.#log === undefined) this.#log = SqliteLogFrontier.load(this.#sqlite, s)
    const log = context.logLeaf === null ? undefined : this.#log
    const leafIndex = log === undefined ? null : log.size
    this.#sqlite.run(s.insertContext(toContextRow(context, leafIndex)))
    // One row per statement: a single prepared statement per table, however many tags or DIDs a body lists
    // (a multi-row text per count would prepare and keep up to a thousand programs per table).
    const ctx_id = context.ctxId
    for (const did of context.audience) this.#sqlite.run(s.insertAudience([{ ctx_id, did }]))
    for (const tag of context.tags) this.#sqlite.run(s.insertTags([{ ctx_id, tag }]))
    for (const source_ctx_id of context.derivedFrom) this.#sqlite.run(s.insertDerivedFrom([{ ctx_id, source_ctx_id }]))
    if (log === undefined || context.logLeaf === null || leafIndex === null) return { outcome: WRITTEN }
    const frontier = log.append(this.#sqlite, s, context, context.logLeaf)
    return { outcome: { ok: true, leafIndex }, frontier }
  }
}
