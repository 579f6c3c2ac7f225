/**
 * Which B-trees a publish writes to the WAL (docs/performance/journal.md, "WAL pages per publish (session 5)").
 *
 * Publishes N synthetic contexts through the real store (`insertContext`, the SQLite group-commit writer) with
 * the trust layer off and with receipt + transparency log, in group-commit batches of the given sizes, with the
 * WAL checkpoint worker held off so that the `-wal` file holds every frame the commits wrote. Then it reads the
 * frame headers (32-byte WAL header; per frame a 24-byte header whose first 4 bytes are the big-endian page
 * number and whose next 4 are non-zero on a transaction's last frame) and names each page by the B-tree that
 * owns it (`dbstat`). Page 1 is the database header plus `sqlite_schema`'s root; a page no B-tree owns at the end
 * is on the freelist.
 *
 *   npm run bench:wal-pages
 *
 * Environment: BENCH_BATCHES (default `1,8`), BENCH_PUBLISHES (per variant, default 2000; the first 200 are a
 * warm-up whose frames are not counted), BENCH_VARIANTS (default `off,receipt+log`).
 */
import { readFileSync, statSync } from 'node:fs'
import { DatabaseSync } from 'node:sqlite'

/** A variable specifier: Node runs the .ts file itself, which TypeScript only accepts in type positions. */
const PUBLISHES_MODULE: string = './store-publishes.ts'
const { measureScratchPublishes } = (await import(PUBLISHES_MODULE)) as typeof import('./store-publishes.ts')
type Variant = import('./store-publishes.ts').TrustVariant

const BATCHES = (process.env['BENCH_BATCHES'] ?? '1,8').split(',').map(Number)
const PUBLISHES = Number(process.env['BENCH_PUBLISHES'] ?? 2000)
const VARIANTS = (process.env['BENCH_VARIANTS'] ?? 'off,receipt+log').split(',') as Variant[]
const WARM_UP = 200
const WAL_HEADER = 32
const FRAME_HEADER = 24

interface Frames {
  pages: number[]
  /** Frames per commit, in commit order. */
  commits: number[]
  pageSize: number
}

/** The frames of `wal` from byte `from` on (a frame boundary), grouped by commit. */
export function readWalFrames(wal: Buffer, from: number): Frames {
  const pageSize = wal.readUInt32BE(8)
  const pages: number[] = []
  const commits: number[] = []
  let inCommit = 0
  for (let at = Math.max(from, WAL_HEADER); at + FRAME_HEADER + pageSize <= wal.length; at += FRAME_HEADER + pageSize) {
    pages.push(wal.readUInt32BE(at))
    inCommit += 1
    if (wal.readUInt32BE(at + 4) !== 0) {
      commits.push(inCommit)
      inCommit = 0
    }
  }
  return { pages, commits, pageSize }
}

async function measure(variant: Variant, batch: number) {
  return measureScratchPublishes(variant, { batch, count: PUBLISHES, warmUp: WARM_UP }, async (path, writeMeasured) => {
    const walBefore = statSync(`${path}-wal`).size
    await writeMeasured()
    const frames = readWalFrames(readFileSync(`${path}-wal`), walBefore)
    // A second, read-only connection sees the committed state through the same WAL.
    const reader = new DatabaseSync(path, { readOnly: true })
    const owner = new Map<number, string>()
    try {
      for (const row of reader.prepare('select name, pageno from dbstat').all() as Array<{
        name: string
        pageno: number
      }>) {
        owner.set(row.pageno, row.name)
      }
    } finally {
      reader.close()
    }
    return { frames, owner, publishes: PUBLISHES - WARM_UP }
  })
}

const nameOf = (owner: Map<number, string>, page: number) =>
  page === 1 ? 'page 1 (header, sqlite_schema)' : (owner.get(page) ?? 'freelist / unowned')

for (const batch of BATCHES) {
  for (const variant of VARIANTS) {
    const { frames, owner, publishes } = await measure(variant, batch)
    const commits = frames.commits.length
    const perTree = new Map<string, number>()
    for (const page of frames.pages) perTree.set(nameOf(owner, page), (perTree.get(nameOf(owner, page)) ?? 0) + 1)
    const framesPerCommit = frames.pages.length / commits
    console.log(
      `\n### batch ${batch}, ${variant}: ${publishes} publishes, ${commits} commits, ` +
        `${framesPerCommit.toFixed(2)} pages per commit, ${(frames.pages.length / publishes).toFixed(2)} per publish ` +
        `(${((frames.pages.length * (frames.pageSize + FRAME_HEADER)) / publishes / 1024).toFixed(1)} KiB of WAL)\n`,
    )
    console.log('| B-tree | pages per commit | pages per publish |')
    console.log('|---|---:|---:|')
    for (const [name, count] of [...perTree].sort((a, b) => b[1] - a[1])) {
      console.log(`| ${name} | ${(count / commits).toFixed(2)} | ${(count / publishes).toFixed(2)} |`)
    }
  }
}
