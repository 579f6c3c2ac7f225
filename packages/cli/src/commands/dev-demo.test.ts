/**
 * `acdp dev --demo` (what `npm start` runs): the stack comes up, the demo run is played, and the printed console
 * link names a run the control plane serves. Real sockets on loopback, free ports, a temp data directory.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { runCli } from '../cli.js'
import { EXIT } from '../exit-codes.js'
import { captureIo } from '../test-io.js'

describe('acdp dev --demo', () => {
  let dataDir: string | undefined
  afterEach(() => {
    if (dataDir) rmSync(dataDir, { recursive: true, force: true })
  })

  it('prints the console link to the demo run it played, and the run is there', async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'acdp-dev-demo-'))
    const io = captureIo({ cwd: dataDir })
    const exit = runCli(
      [
        'dev',
        '--demo',
        '--data-dir',
        dataDir,
        '--registry-port',
        '0',
        '--control-plane-port',
        '0',
        '--log-level',
        'silent',
      ],
      io,
    )
    const deadline = Date.now() + 30_000
    let link: RegExpMatchArray | null = null
    while (link === null && Date.now() < deadline) {
      link = /(http:\/\/127\.0\.0\.1:\d+)\/console\/#\/runs\/(demo-[\w-]+)/.exec(io.out())
      if (link === null) await new Promise((resolve) => setTimeout(resolve, 100))
    }
    try {
      expect(link, `${io.out()}\n${io.err()}`).not.toBeNull()
      const [, controlPlaneUrl, runId] = link as RegExpMatchArray
      expect(io.out()).toContain(`console         ${controlPlaneUrl}/console/`)
      const secrets = JSON.parse(readFileSync(join(dataDir, 'dev-secrets.json'), 'utf8')) as Record<string, string>
      const run = await fetch(`${controlPlaneUrl}/runs/${runId}`, {
        headers: { authorization: `Bearer ${secrets['control_plane_api_key']}` },
      })
      expect(run.status).toBe(200)
      expect(await run.json()).toMatchObject({ runId, status: 'completed' })
      const consolePage = await fetch(`${controlPlaneUrl}/console/`)
      // 200 with a console build present, 404 CONSOLE_NOT_BUILT without one: never a server error.
      expect([200, 404]).toContain(consolePage.status)
    } finally {
      io.interrupt()
      expect(await exit).toBe(EXIT.ok)
    }
  }, 60_000)
})
