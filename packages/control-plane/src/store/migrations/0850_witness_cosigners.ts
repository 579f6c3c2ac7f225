/**
 * 0850: who cosigned each witnessed head. `log_witness_checkpoints` gains, for the latest observation of the head,
 * `cosigners` (JSON text `[{"name": …, "standing": …}]`, at most 32 entries, written by the witness store) and
 * `quorum_min` (WITNESS_QUORUM_MIN_WITNESSES then in force, NULL when quorum consumption was off). Both stay NULL
 * on rows last observed before this migration: unknown, not "nobody"; the next observation of the head fills them.
 * Nullable columns without a default: a constant-time ALTER on both dialects, whatever the table's size.
 */
import type { Migration } from '@acdp/storage'
import type { Kysely } from 'kysely'

export const migration0850WitnessCosigners: Migration = {
  name: '0850_witness_cosigners',
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- migrations run before the typed schema exists
  async up(db: Kysely<any>, kind) {
    const int = kind === 'postgres' ? 'bigint' : 'integer'
    await db.schema.alterTable('log_witness_checkpoints').addColumn('cosigners', 'text').execute()
    await db.schema.alterTable('log_witness_checkpoints').addColumn('quorum_min', int).execute()
  },
}
