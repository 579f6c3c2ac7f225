/**
 * @acdp/storage — storage plumbing shared by the registry and the control plane: Kysely over the built-in
 * node:sqlite (embedded default) or PostgreSQL, versioned migrations, and contract-test targets.
 * It knows no table of either service.
 */

export { type Migration, migrateToLatest } from './migrate.js'
export { type Database, type DatabaseKind, type OpenDatabaseOptions, openDatabase } from './open-database.js'
export { hasSoleWriter } from './sole-writer.js'
export { PgNamedStatements } from './pg-named-statements.js'
export { type SnapshotReaderOptions, type SnapshotReaders, startSnapshotReaders } from './snapshot-readers.js'
export { NodeSqliteDatabase } from './sqlite-database.js'
export {
  openPostgresTestSchema,
  type TestDatabaseTarget,
  testDatabaseTargets,
  testDatabaseUrl,
} from './test-targets.js'
export { isUniqueViolation } from './unique-violation.js'
export {
  type CheckpointMode,
  type CheckpointOutcome,
  DEFAULT_WAL_MAX_BYTES,
  DEFAULT_WORKER_START_BYTES,
  MIN_WAL_MAX_BYTES,
  type WalCheckpointerOptions,
  type WalCheckpointStats,
  WriterGate,
} from './wal-checkpointer.js'
