/**
 * `acdp log audit` against a registry that keeps no transparency log (a real registry on loopback, trust layer
 * off): the error names what the operator has to configure, not only the status.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { resolveConfig, type RunningRegistry, startRegistry } from '@acdp/registry'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli } from '../cli.js'
import { EXIT } from '../exit-codes.js'
import { captureIo } from '../test-io.js'

describe('acdp log audit against a registry without a log', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'acdp-log-audit-'))
  let registry: RunningRegistry
  let registryUrl: string

  beforeAll(async () => {
    registry = await startRegistry(
      resolveConfig(
        {
          registry: { authority: 'nolog.test', log_level: 'silent' },
          storage: { backend: 'sqlite', sqlite_path: join(dataDir, 'registry.db') },
        },
        { nodeEnv: 'test' },
      ),
    )
    await registry.app.listen({ host: '127.0.0.1', port: 0 })
    registryUrl = `http://127.0.0.1:${(registry.app.server.address() as AddressInfo).port}`
  })

  afterAll(async () => {
    await registry?.close()
    rmSync(dataDir, { recursive: true, force: true })
  })

  it('fails with log_unavailable and the settings that turn the log on', async () => {
    const checkpoint = await fetch(`${registryUrl}/log/checkpoint`)
    expect(checkpoint.status).toBe(501)
    const io = captureIo({ cwd: dataDir })
    const code = await runCli(['log', 'audit', registryUrl, '--count', '1', '--interval', '0'], io)
    expect(io.err()).toMatch(/log_unavailable: GET \/log\/checkpoint answered 501; .*log\.enabled = true.*receipt key/)
    expect(code).toBe(EXIT.failure)
  })
})
