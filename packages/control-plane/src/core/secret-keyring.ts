/**
 * Loads the keyring that seals secrets at rest (core/secret-box.ts).
 *
 * Production: SECRETS_ENCRYPTION_KEY is required (config refuses to boot without it). Development and test:
 * when it is unset, a random key is generated once into `<DATA_DIR>/secrets.key` (mode 0600) and reused, so
 * sealed secrets survive restarts of a local instance. Rotation: see docs/control-plane/configuration.md.
 */
import { randomBytes } from 'node:crypto'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { type ControlPlaneConfig, decodeKey } from './config.js'
import { createSecretKeyring, type SecretKeyring } from './secret-box.js'

/** File name of the generated development key inside DATA_DIR. */
export const DEVELOPMENT_KEY_FILE = 'secrets.key'

/**
 * Builds the keyring from the configuration, creating the development key file when needed.
 *
 * @throws Error when the key file exists but does not hold a 32-byte key.
 */
export async function loadSecretKeyring(config: ControlPlaneConfig): Promise<SecretKeyring> {
  const previous = config.secrets.previousKeys.map((text) => decodeKey(text) as Uint8Array)
  if (config.secrets.key !== undefined) {
    return createSecretKeyring(decodeKey(config.secrets.key) as Uint8Array, previous)
  }
  if (config.isProduction) throw new Error('SECRETS_ENCRYPTION_KEY is required in production')
  const path = join(config.dataDir, DEVELOPMENT_KEY_FILE)
  await mkdir(config.dataDir, { recursive: true })
  try {
    // 'wx': never overwrite a key another process created first.
    await writeFile(path, `${randomBytes(32).toString('base64')}\n`, { flag: 'wx', mode: 0o600 })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
  }
  const key = decodeKey((await readFile(path, 'utf8')).trim())
  if (key === undefined) throw new Error(`${path} does not hold a 32-byte base64 or hex key`)
  return createSecretKeyring(key, previous)
}
