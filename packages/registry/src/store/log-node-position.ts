/**
 * Where a stored perfect-subtree hash sits in `log_node` (migration 0007): its post-order position, the number
 * of complete perfect subtrees that end before it plus those of its own leaf that it contains. Appending leaf m
 * completes the nodes at levels 0..t (t = trailing one bits of m), and they take positions `2m − popcount(m)`
 * through `2m − popcount(m) + t`: consecutive keys after every earlier node, so one append writes one run at the
 * end of the B-tree (one leaf page) instead of one row on each level's own tail page.
 *
 * The node covering leaves [i·2^L, (i+1)·2^L) is the last one completed by leaf m = (i+1)·2^L − 1, at level L.
 */

/** Post-order position of node (level, index); exact for every position below 2^53. */
export function logNodePosition(level: number, index: number): number {
  const m = (index + 1) * 2 ** level - 1
  return 2 * m - popcount(m) + level
}

/** One bits of a non-negative safe integer (JavaScript's bitwise operators see 32 bits only). */
function popcount(n: number): number {
  let count = 0
  for (let rest = n; rest > 0; rest = Math.floor(rest / 2 ** 32)) {
    let word = (rest % 2 ** 32) >>> 0
    while (word !== 0) {
      word &= word - 1
      count += 1
    }
  }
  return count
}

/**
 * The same position as a SQL expression over integer columns `level` and `idx` (the 0002 layout), for the
 * migration that re-keys stored nodes: bit operators only, so SQLite and PostgreSQL evaluate it identically.
 */
export function logNodePositionSql(level: string, idx: string): string {
  // PostgreSQL shifts a bigint by an integer only.
  const m = `(((${idx} + 1) << cast(${level} as integer)) - 1)`
  const bits = Array.from({ length: 62 }, (_, bit) => `((${m} >> ${bit}) & 1)`).join(' + ')
  return `(2 * ${m} - (${bits}) + ${level})`
}
