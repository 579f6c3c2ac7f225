/**
 * GET /registries/:authority/health of the control plane against a real registry (the dev stack: both services on
 * loopback sockets, the registry enrolled with its base URL): the registry's own /healthz is relayed as `ok` with
 * its body, equal to what the registry answers itself, and its missing /readyz as `not_served`.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEV_REGISTRY_AUTHORITY, type RunningDevStack, startDevStack } from '../../packages/cli/src/dev/dev-stack.js'

describe('control plane registry health against the dev registry', () => {
  let dataDir: string
  let stack: RunningDevStack

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'acdp-registry-health-'))
    stack = await startDevStack({
      dataDir,
      host: '127.0.0.1',
      registryPort: 0,
      controlPlanePort: 0,
      logLevel: 'warn',
      writeLog: () => {},
    })
  }, 120_000)

  afterAll(async () => {
    await stack?.close()
    if (dataDir) rmSync(dataDir, { recursive: true, force: true })
  })

  it("relays the registry's /healthz as ok with its body, and its absent /readyz as not_served", async () => {
    const direct = await fetch(`${stack.registryUrl}/healthz`, { signal: AbortSignal.timeout(10_000) })
    expect(direct.status).toBe(200)
    const directBody = (await direct.json()) as Record<string, unknown>
    expect(directBody).toMatchObject({ status: 'ok', storage: true })

    const response = await fetch(`${stack.controlPlaneUrl}/registries/${DEV_REGISTRY_AUTHORITY}/health`, {
      headers: { authorization: `Bearer ${stack.secrets.control_plane_api_key}` },
      signal: AbortSignal.timeout(10_000),
    })
    expect(response.status).toBe(200)
    const body = (await response.json()) as Record<string, unknown>
    expect(body).toMatchObject({
      authority: DEV_REGISTRY_AUTHORITY,
      health: { status: 'ok', httpStatus: 200, body: directBody, error: null },
      readiness: { status: 'not_served', httpStatus: 404, error: null },
    })
    expect(Date.parse(body['checkedAt'] as string)).not.toBeNaN()
  })
})
