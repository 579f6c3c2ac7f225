/**
 * Storage for a crash run: a SQLite file in a temporary directory always, and a fresh PostgreSQL database
 * (created and dropped here) when ACDP_TEST_DATABASE_URL is set. A whole database rather than a schema: the
 * services connect with a plain URL, exactly as an operator's configuration does.
 */
import { randomBytes } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { testDatabaseUrl } from '@acdp/storage'
import pg from 'pg'

export interface CrashBackend {
  kind: 'sqlite' | 'postgres'
  /** Scratch directory of the run (config files, the SQLite file, data dir). */
  dir: string
  /** SQLite file path (kind sqlite). */
  sqlitePath: string
  /** PostgreSQL URL of the run's own database (kind postgres). */
  postgresUrl: string
  dispose(): Promise<void>
}

export function crashBackendKinds(): Array<'sqlite' | 'postgres'> {
  return testDatabaseUrl() === undefined ? ['sqlite'] : ['sqlite', 'postgres']
}

export async function openCrashBackend(kind: 'sqlite' | 'postgres', label: string): Promise<CrashBackend> {
  const dir = mkdtempSync(join(tmpdir(), `acdp-crash-${label}-`))
  if (kind === 'sqlite') {
    return {
      kind,
      dir,
      sqlitePath: join(dir, `${label}.db`),
      postgresUrl: '',
      async dispose() {
        rmSync(dir, { recursive: true, force: true })
      },
    }
  }
  const adminUrl = testDatabaseUrl() as string
  const name = `acdp_crash_${label.replaceAll('-', '_')}_${randomBytes(4).toString('hex')}`
  await adminQuery(adminUrl, `CREATE DATABASE ${name}`)
  const url = new URL(adminUrl)
  url.pathname = `/${name}`
  return {
    kind,
    dir,
    sqlitePath: '',
    postgresUrl: url.href,
    async dispose() {
      await adminQuery(adminUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

async function adminQuery(url: string, sql: string): Promise<void> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    await client.query(sql)
  } finally {
    await client.end()
  }
}
