/**
 * `acdp registries enroll <authority>`: enrolls a registry with the control plane (POST /registries/enroll, admin
 * key) and prints what the registry's own configuration needs to match it: the webhook to the control plane
 * (its URL, and the secret file whose content becomes ACDP_REGISTRY_WEBHOOK__SECRET) and, when the control
 * plane cosigns, the `[[witnesses]]` entry naming it. The webhook secret is read from --secret-file, or
 * generated into that file (mode 0600) when it does not exist yet; it is never printed.
 */
import { randomBytes } from 'node:crypto'
import { existsSync, writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import type { CliIo } from '../command.js'
import { CliError, EXIT, usageError } from '../exit-codes.js'
import { type ControlPlaneTarget, enrollRegistry, readWitnessDid } from '../http/control-plane-client.js'
import { sanitizeTerminalText } from '../render/text-table.js'
import { readSecretFile } from './input-files.js'
import { checkBaseUrl } from './shared-options.js'

/** The enrollment API's authority shape. */
const AUTHORITY = /^[A-Za-z0-9.:-]{1,255}$/
/** How often the printed `[[witnesses]]` entry polls the control plane for cosignatures. */
const WITNESS_POLL_SECONDS = 60

export const ENROLL_HELP = `enroll                creates or updates the enrollment of <authority>: --base-url (default https://<authority>),
                      --registry-did (default did:web:<authority>), the webhook secret in --secret-file (generated
                      into the file, mode 0600, when it does not exist), --witness on|off (on: the control plane's
                      log witness polls the registry at its base URL; off: no base URL is enrolled, so it is not
                      polled); then prints the registry configuration to match`

/** The flags `enroll` reads, as parsed by the `registries` command. */
export interface EnrollFlags {
  'base-url'?: string | undefined
  'registry-did'?: string | undefined
  'secret-file'?: string | undefined
  witness?: string | undefined
  'public-url'?: string | undefined
  json?: boolean | undefined
}

/** Runs `acdp registries enroll`. @throws CliError `usage` on bad flags; the control plane's code on refusal. */
export async function enrollCommand(
  io: CliIo,
  target: ControlPlaneTarget,
  authority: string,
  flags: EnrollFlags,
): Promise<void> {
  if (!AUTHORITY.test(authority)) throw usageError('<authority> must be a host name such as registry.example.com')
  if (flags['secret-file'] === undefined) {
    throw usageError('enroll needs --secret-file FILE (read when it exists, else a new secret is generated into it)')
  }
  const witness = flags.witness ?? 'on'
  if (witness !== 'on' && witness !== 'off') throw usageError('--witness must be on or off')
  const baseUrl = checkBaseUrl('base-url', flags['base-url']) ?? `https://${authority}`
  const publicUrl = (checkBaseUrl('public-url', flags['public-url']) ?? target.baseUrl).replace(/\/+$/, '')
  const registryDid = flags['registry-did'] ?? `did:web:${authority.replace(/:/g, '%3A')}`
  const { path: secretPath, generated } = secretFileFor(io, flags['secret-file'])
  const enrollment = await enrollRegistry(io, target, {
    authority,
    baseUrl: witness === 'on' ? baseUrl : null,
    registryDid,
    webhookSecret: readSecretFile(io, secretPath),
    enabled: true,
  })
  const witnessDid = witness === 'on' ? await readWitnessDid(io, target) : undefined
  const registryConfig = {
    webhook: { enabled: true, url: `${publicUrl}/ingest/acdp` },
    witnesses:
      witnessDid === undefined
        ? []
        : [{ did: witnessDid, url: `${publicUrl}/log/witness`, poll_seconds: WITNESS_POLL_SECONDS }],
  }
  if (flags.json) {
    const document = {
      enrollment,
      secret_file: secretPath,
      secret_generated: generated,
      registry_config: registryConfig,
    }
    io.stdout(`${JSON.stringify(document, null, 2)}\n`)
    return
  }
  const lines = [
    `enrolled ${enrollment.authority} in tenant ${enrollment.tenantId}; webhook secret ${generated ? 'generated into' : 'read from'} ${secretPath}; witness ${witness}`,
    '',
    "Put this in the registry's configuration (registry.toml):",
    '',
    '[webhook]',
    'enabled = true',
    `url = ${JSON.stringify(registryConfig.webhook.url)}`,
    `# secret: the content of ${secretPath}, as ACDP_REGISTRY_WEBHOOK__SECRET in the registry's secrets file`,
  ]
  for (const entry of registryConfig.witnesses) {
    lines.push('', '[[witnesses]]', `did = ${JSON.stringify(entry.did)}`, `url = ${JSON.stringify(entry.url)}`)
    lines.push(`poll_seconds = ${entry.poll_seconds}`)
  }
  if (witness === 'on' && witnessDid === undefined) {
    lines.push(
      '',
      '# the control plane watches the log but does not cosign (no /.well-known/did.json): no [[witnesses]]',
    )
  }
  io.stdout(`${lines.map(sanitizeTerminalText).join('\n')}\n`)
}

/** The secret file's full path; when it does not exist, a new 32-byte secret is written there owner-only. */
function secretFileFor(io: Pick<CliIo, 'cwd'>, path: string): { path: string; generated: boolean } {
  const fullPath = resolve(io.cwd, path)
  if (existsSync(fullPath)) return { path: fullPath, generated: false }
  try {
    // 'wx': never over a file that appeared meanwhile; 0600: the secret is the registry's credential.
    writeFileSync(fullPath, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' })
  } catch (error) {
    throw new CliError(EXIT.usage, 'usage', `cannot write secret file ${fullPath}: ${(error as Error).message}`, {
      cause: error,
    })
  }
  return { path: fullPath, generated: true }
}
