/** True when a driver error is a unique-constraint violation, on either backend. */
export function isUniqueViolation(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false
  const e = error as { code?: unknown; errcode?: unknown; message?: unknown }
  // PostgreSQL: SQLSTATE 23505 unique_violation.
  if (e.code === '23505') return true
  // node:sqlite: ERR_SQLITE_ERROR with extended code SQLITE_CONSTRAINT_UNIQUE (2067) or PRIMARYKEY (1555).
  if (e.code === 'ERR_SQLITE_ERROR' && (e.errcode === 2067 || e.errcode === 1555)) return true
  return typeof e.message === 'string' && /UNIQUE constraint failed/.test(e.message)
}
