/**
 * Whether this process is the only one writing the database: an embedded SQLite file is opened by one service
 * process (its WAL and locks are local to the machine, and the services take one instance per file), so what this
 * process wrote is everything there is and in-memory views of the data can be exact; a PostgreSQL database may be
 * shared by several instances, each of which may write behind the others' backs.
 */
import type { DatabaseKind } from './open-database.js'

export function hasSoleWriter(kind: DatabaseKind): boolean {
  return kind === 'sqlite'
}
