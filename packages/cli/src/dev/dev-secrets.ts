/**
 * The dev stack's secrets, generated on the first `acdp dev` and kept in `<data dir>/dev-secrets.json`
 * (mode 0600) so a second run reuses them along with the data. Development only: these values never leave the
 * machine, and `acdp dev` refuses to run with NODE_ENV=production.
 */
import { randomBytes } from 'node:crypto'
import { chmodSync, closeSync, fsyncSync, openSync, readFileSync, renameSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import { DEV_SECRETS_FILE } from '../stack-target.js'

/** Every secret the dev stack wires. Member names are the file's. */
export interface DevSecrets {
  /** The registry's webhook.secret, enrolled in the control plane as that registry's webhookSecret. */
  webhook_secret: string
  /** The control plane's WEBHOOK_SECRET: signs POST /runs/started and /runs/:id/complete (acdp demo). */
  run_secret: string
  /** The control plane's admin API key (AUTH_ADMIN_API_KEYS): enrollment and every read route. */
  control_plane_api_key: string
  /** The registry's admin bearer (auth.admin_tokens). */
  registry_admin_token: string
  /**
   * Seed (32 bytes, base64url) of the registry's receipt key: signs receipts, lineage-head receipts and log
   * checkpoints. Losing it while the registry's data survives orphans every receipt, so that is refused.
   */
  receipt_key_seed: string
  /** Seed (32 bytes, base64url) of the control plane's witness key: cosigns the registry's checkpoints. */
  witness_key_seed: string
}

const MEMBERS: ReadonlyArray<keyof DevSecrets> = [
  'webhook_secret',
  'run_secret',
  'control_plane_api_key',
  'registry_admin_token',
  'receipt_key_seed',
  'witness_key_seed',
]

/** 32 random bytes as base64url: 43 characters, above every minimum length the services enforce. */
function generateSecret(): string {
  return randomBytes(32).toString('base64url')
}

/**
 * Reads the secrets file, generating any missing member (all of them on a first run) and writing the file
 * back atomically with mode 0600 when something was generated.
 *
 * A member missing from an existing file is generated: that is how a data directory from before the trust
 * layer gains its keys (its contexts carry no receipts, so no earlier key is orphaned). A missing FILE while
 * the registry's data survives (`options.dataSurvives`) is refused instead: the receipt key signed that data.
 *
 * @returns the secrets and whether any were generated now.
 * @throws Error when the file exists but is not a JSON object (the user is told to fix or --reset), or is
 *   missing while the registry's data survives.
 */
export function loadOrCreateDevSecrets(
  dataDir: string,
  options: { dataSurvives?: boolean } = {},
): { secrets: DevSecrets; generated: boolean } {
  const path = join(dataDir, DEV_SECRETS_FILE)
  let stored: Record<string, unknown> = {}
  let text: string | undefined
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
    if (options.dataSurvives === true) {
      throw new Error(
        `${path} is missing but the registry's data survives: its receipts and log were signed with the receipt key kept there; restore the file, or start clean (new keys, empty data) with acdp dev --reset`,
        { cause: error },
      )
    }
  }
  if (text !== undefined) {
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch {
      parsed = undefined
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw new Error(`${path} is not a JSON object; fix it or start clean with acdp dev --reset`)
    }
    stored = parsed as Record<string, unknown>
  }
  let generated = false
  const secrets = {} as DevSecrets
  for (const member of MEMBERS) {
    const value = stored[member]
    if (typeof value === 'string' && value.length >= 16) {
      secrets[member] = value
    } else {
      secrets[member] = generateSecret()
      generated = true
    }
  }
  if (generated) writeFileAtomically(path, `${JSON.stringify(secrets, null, 2)}\n`, 0o600)
  else chmodSync(path, 0o600)
  return { secrets, generated }
}

/** A 32-byte seed kept as base64url, in the standard base64 the services' settings take. */
export function seedAsBase64(seed: string): string {
  return Buffer.from(seed, 'base64url').toString('base64')
}

/** Writes a file through a temporary sibling and a rename, so a crash never leaves half a file. */
export function writeFileAtomically(path: string, text: string, mode: number): void {
  const temporary = `${path}.${process.pid}.tmp`
  const fd = openSync(temporary, 'w', mode)
  try {
    writeSync(fd, text)
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
  chmodSync(temporary, mode)
  renameSync(temporary, path)
}
