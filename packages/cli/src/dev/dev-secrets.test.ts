import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { loadOrCreateDevSecrets } from './dev-secrets.js'

const created: string[] = []
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'acdp-secrets-'))
  created.push(dir)
  return dir
}
afterAll(() => {
  for (const dir of created) rmSync(dir, { recursive: true, force: true })
})

describe('loadOrCreateDevSecrets', () => {
  it('generates distinct secrets on the first run, stores them 0600, and reuses them afterwards', () => {
    const dir = tempDir()
    const first = loadOrCreateDevSecrets(dir)
    expect(first.generated).toBe(true)
    const values = Object.values(first.secrets)
    expect(new Set(values).size).toBe(6)
    for (const value of values) expect(value).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(statSync(join(dir, 'dev-secrets.json')).mode & 0o777).toBe(0o600)
    const second = loadOrCreateDevSecrets(dir)
    expect(second).toEqual({ secrets: first.secrets, generated: false })
  })

  it('fills in a missing member and keeps the others', () => {
    const dir = tempDir()
    const kept = 'k'.repeat(32)
    writeFileSync(join(dir, 'dev-secrets.json'), JSON.stringify({ webhook_secret: kept }))
    const { secrets, generated } = loadOrCreateDevSecrets(dir)
    expect(generated).toBe(true)
    expect(secrets.webhook_secret).toBe(kept)
    expect(JSON.parse(readFileSync(join(dir, 'dev-secrets.json'), 'utf8'))).toEqual(secrets)
  })

  it('refuses a missing secrets file while the registry data survives, naming --reset', () => {
    const dir = tempDir()
    expect(() => loadOrCreateDevSecrets(dir, { dataSurvives: true })).toThrow(/receipt key.*--reset/)
    expect(existsSync(join(dir, 'dev-secrets.json'))).toBe(false)
  })

  it('refuses a secrets file that is not a JSON object, naming --reset', () => {
    const dir = tempDir()
    writeFileSync(join(dir, 'dev-secrets.json'), '[1,2]')
    expect(() => loadOrCreateDevSecrets(dir)).toThrow(/--reset/)
  })
})
