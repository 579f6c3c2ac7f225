/**
 * Where the CLI's commands find the registry and the control plane, and the credentials for them. Precedence
 * per value: command-line flag, then `ACDP_*` environment variable, then the files a running `acdp dev` keeps
 * in its data directory, then the dev defaults. So on a machine running `npm start`, `acdp runs` and
 * `acdp demo` work with no flags at all.
 */
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import type { CliIo } from './command.js'
import type { ControlPlaneTarget } from './http/control-plane-client.js'

/** Registry port of the dev stack (docs/dev-stack.md). */
export const DEFAULT_REGISTRY_PORT = 3000
/** Control plane port of the dev stack (the control plane's own default PORT). */
export const DEFAULT_CONTROL_PLANE_PORT = 3001
/** Loopback address the dev stack binds and the CLI calls by default. */
export const DEFAULT_HOST = '127.0.0.1'
/** Data directory of the dev stack, relative to the working directory. */
export const DEFAULT_DATA_DIR = 'data'

/** Written by a running `acdp dev` (URLs, pid), removed when it stops. */
export const DEV_STACK_FILE = 'dev-stack.json'
/** The dev stack's generated secrets (mode 0600). */
export const DEV_SECRETS_FILE = 'dev-secrets.json'

/** The values a command may need; each is resolved independently. */
export interface StackTarget {
  registryUrl: string
  controlPlaneUrl: string
  /** Control-plane bearer key (AUTH_API_KEYS), when one is configured. */
  apiKey?: string
  /** The control plane's WEBHOOK_SECRET, which signs POST /runs/started and /runs/:id/complete. */
  runSecret?: string
}

/** Flags a command accepted; undefined means "not given". */
export interface StackFlags {
  registry?: string | undefined
  controlPlane?: string | undefined
  dataDir?: string | undefined
}

/** The data directory a command uses: `--data-dir`, else ACDP_DATA_DIR, else ./data (relative to cwd). */
export function resolveDataDir(io: Pick<CliIo, 'env' | 'cwd'>, flag?: string): string {
  return resolve(io.cwd, flag ?? nonEmpty(io.env['ACDP_DATA_DIR']) ?? DEFAULT_DATA_DIR)
}

/** Resolves every value of {@link StackTarget} by the precedence described above. */
export function resolveStackTarget(io: Pick<CliIo, 'env' | 'cwd'>, flags: StackFlags = {}): StackTarget {
  const dataDir = resolveDataDir(io, flags.dataDir)
  const stack = readJsonRecord(resolve(dataDir, DEV_STACK_FILE))
  const secrets = readJsonRecord(resolve(dataDir, DEV_SECRETS_FILE))
  const apiKey = nonEmpty(io.env['ACDP_API_KEY']) ?? stringMember(secrets, 'control_plane_api_key')
  const runSecret = nonEmpty(io.env['ACDP_RUN_SECRET']) ?? stringMember(secrets, 'run_secret')
  return {
    registryUrl:
      flags.registry ??
      nonEmpty(io.env['ACDP_REGISTRY_URL']) ??
      stringMember(stack, 'registry_url') ??
      `http://${DEFAULT_HOST}:${DEFAULT_REGISTRY_PORT}`,
    controlPlaneUrl:
      flags.controlPlane ??
      nonEmpty(io.env['ACDP_CONTROL_PLANE_URL']) ??
      stringMember(stack, 'control_plane_url') ??
      `http://${DEFAULT_HOST}:${DEFAULT_CONTROL_PLANE_PORT}`,
    ...(apiKey === undefined ? {} : { apiKey }),
    ...(runSecret === undefined ? {} : { runSecret }),
  }
}

function readJsonRecord(path: string): Record<string, unknown> | undefined {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch {
    return undefined
  }
  try {
    const parsed: unknown = JSON.parse(text)
    return typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)
      ? (parsed as Record<string, unknown>)
      : undefined
  } catch {
    return undefined
  }
}

function stringMember(record: Record<string, unknown> | undefined, name: string): string | undefined {
  const value = record?.[name]
  return typeof value === 'string' && value !== '' ? value : undefined
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value
}

/** The control-plane part of a resolved target, as the control-plane client takes it. */
export function controlPlaneOf(target: StackTarget): ControlPlaneTarget {
  return target.apiKey === undefined
    ? { baseUrl: target.controlPlaneUrl }
    : { baseUrl: target.controlPlaneUrl, apiKey: target.apiKey }
}
