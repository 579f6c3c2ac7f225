/**
 * Where the examples publish: the stack `npm start` runs. Each value comes from its environment variable, else
 * from the files a running `acdp dev` keeps in its data directory (`ACDP_DATA_DIR`, default ./data), exactly as
 * the `acdp` CLI finds them. Every example run gets fresh did:key identities, one per agent role.
 */
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import type { RecorderConfig } from '@acdp/integrations'
import { createProducerKey } from '@acdp/protocol'

function readRecord(path: string): Record<string, unknown> {
  try {
    const parsed: unknown = JSON.parse(readFileSync(path, 'utf8'))
    return typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {}
  } catch {
    return {}
  }
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined
}

/** The recorder configuration for the running dev stack, with one fresh key per role. */
export function devStackConfig(scenarioId: string, roles: readonly string[]): RecorderConfig & { consoleUrl: string } {
  const dataDir = resolve(process.env['ACDP_DATA_DIR'] ?? 'data')
  const stack = readRecord(resolve(dataDir, 'dev-stack.json'))
  const secrets = readRecord(resolve(dataDir, 'dev-secrets.json'))
  const registryUrl = text(process.env['ACDP_REGISTRY_URL']) ?? text(stack['registry_url']) ?? 'http://127.0.0.1:3000'
  const controlPlaneUrl =
    text(process.env['ACDP_CONTROL_PLANE_URL']) ?? text(stack['control_plane_url']) ?? 'http://127.0.0.1:3001'
  const runSecret = text(process.env['ACDP_RUN_SECRET']) ?? text(secrets['run_secret'])
  if (runSecret === undefined) {
    throw new Error(`no run secret: start the stack with npm start (it keeps one in ${dataDir}) or set ACDP_RUN_SECRET`)
  }
  return {
    registryUrl,
    keys: Object.fromEntries(roles.map((role) => [role, createProducerKey()])),
    run: { scenarioId, controlPlane: { url: controlPlaneUrl, runSecret } },
    domain: 'finance.markets',
    consoleUrl: `${controlPlaneUrl}/console/`,
  }
}

/** Is a real model wanted (OPENAI_API_KEY set)? The examples run on the framework's mock model otherwise. */
export function realModelName(): string | undefined {
  return text(process.env['OPENAI_API_KEY']) === undefined
    ? undefined
    : (process.env['ACDP_EXAMPLE_MODEL'] ?? 'gpt-4o-mini')
}

/** Prints where to look at the run. */
export function printRun(runId: string, consoleUrl: string, lines: string[]): void {
  for (const line of lines) console.log(line)
  console.log(
    `\nrun ${runId}\n  console   ${consoleUrl}#/runs/${encodeURIComponent(runId)}\n  CLI       npm run acdp -- run ${runId}`,
  )
}
