/**
 * Secrets at rest: AES-256-GCM sealing of webhook secrets (per-registry enrollment secrets here; outbound
 * subscription secrets in the webhooks feature), with key rotation.
 *
 * Sealed form: `acdp-sealed:v1:<kid>:<iv>:<ciphertext‖tag>` (base64url parts). `kid` names the key, so after a
 * rotation the previous key is still found for decryption. The caller's `context` (e.g.
 * `registry-enrollment:<authority>`) is bound as additional authenticated data, so a sealed value copied onto
 * another row does not open there.
 */
import { createCipheriv, createDecipheriv } from 'node:crypto'
import { sha256 } from '@acdp/protocol'

/** Keys for sealing (`current`) and opening (`current`, then `previous`). Each key is 32 bytes. */
export interface SecretKeyring {
  readonly current: Uint8Array
  readonly previous: readonly Uint8Array[]
}

const PREFIX = 'acdp-sealed:v1'
const IV_BYTES = 12
const TAG_BYTES = 16

/**
 * Builds a keyring.
 *
 * @throws TypeError when a key is not 32 bytes (caller misuse).
 */
export function createSecretKeyring(current: Uint8Array, previous: readonly Uint8Array[] = []): SecretKeyring {
  for (const key of [current, ...previous]) {
    if (key.length !== 32) throw new TypeError('an AES-256-GCM key is 32 bytes')
  }
  return Object.freeze({ current, previous: Object.freeze([...previous]) })
}

/** Key id: a short, domain-separated digest of the key (names the key without revealing it). */
function keyId(key: Uint8Array): string {
  return Buffer.from(sha256(Buffer.concat([Buffer.from('acdp-secret-box-kid:'), key])))
    .toString('hex')
    .slice(0, 16)
}

function aad(context: string): Buffer {
  return Buffer.from(`${PREFIX}:${context}`, 'utf8')
}

/**
 * Seals `plaintext` under the current key.
 *
 * @param context binds the ciphertext to its row, e.g. `registry-enrollment:<authority>`.
 * @param random injected randomness (deps.random); 12 bytes are drawn for the IV.
 */
export function sealSecret(
  keyring: SecretKeyring,
  plaintext: string,
  context: string,
  random: (size: number) => Uint8Array,
): string {
  const iv = random(IV_BYTES)
  if (iv.length !== IV_BYTES) throw new TypeError('random() returned the wrong number of bytes')
  const cipher = createCipheriv('aes-256-gcm', keyring.current, iv)
  cipher.setAAD(aad(context))
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()])
  return [PREFIX, keyId(keyring.current), Buffer.from(iv).toString('base64url'), body.toString('base64url')].join(':')
}

/**
 * Opens a sealed secret with whichever key of the ring sealed it.
 *
 * @throws Error (a server fault, reported as 500) when the value is malformed, names no key of the ring
 *   (a key was dropped from SECRETS_ENCRYPTION_KEY_PREVIOUS too early), or fails authentication (tampered,
 *   or sealed for another context).
 */
export function openSecret(keyring: SecretKeyring, sealed: string, context: string): string {
  const parts = sealed.split(':')
  if (parts.length !== 5 || `${parts[0]}:${parts[1]}` !== PREFIX) throw new Error('sealed secret is malformed')
  const [, , kid, ivText, bodyText] = parts as [string, string, string, string, string]
  const key = [keyring.current, ...keyring.previous].find((candidate) => keyId(candidate) === kid)
  if (key === undefined) {
    throw new Error('sealed secret uses a key that is not configured (keep it in SECRETS_ENCRYPTION_KEY_PREVIOUS)')
  }
  const iv = Buffer.from(ivText, 'base64url')
  const body = Buffer.from(bodyText, 'base64url')
  if (iv.length !== IV_BYTES || body.length < TAG_BYTES) throw new Error('sealed secret is malformed')
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, iv)
    decipher.setAAD(aad(context))
    decipher.setAuthTag(body.subarray(body.length - TAG_BYTES))
    return Buffer.concat([decipher.update(body.subarray(0, body.length - TAG_BYTES)), decipher.final()]).toString(
      'utf8',
    )
  } catch (cause) {
    throw new Error('sealed secret failed authentication', { cause })
  }
}

/** True when `sealed` was sealed with the current key (false: re-seal it after a rotation). */
export function isSealedWithCurrentKey(keyring: SecretKeyring, sealed: string): boolean {
  return sealed.split(':')[2] === keyId(keyring.current)
}
