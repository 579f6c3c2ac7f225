/**
 * The balancer configuration of docs/deploy.md "The tested balancer configuration (HAProxy)": the copy in the
 * page is deploy/haproxy.cfg as committed (the file test/multi-instance/ runs), from its first directive on, and
 * HAProxy accepts the file when the addresses it reads from the environment are set (checked when HAProxy is
 * installed; the multi-instance suite runs it for real).
 */
import { spawnSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { REPOSITORY_ROOT } from '../crash/service-process.js'

const CONFIG_PATH = join(REPOSITORY_ROOT, 'deploy', 'haproxy.cfg')
const hasHaproxy = spawnSync('haproxy', ['-v'], { stdio: 'ignore' }).status === 0

describe('deploy/haproxy.cfg', () => {
  it('is the configuration docs/deploy.md shows', () => {
    const file = readFileSync(CONFIG_PATH, 'utf8')
    const page = readFileSync(join(REPOSITORY_ROOT, 'docs', 'deploy.md'), 'utf8')
    const blocks = [...page.matchAll(/```haproxy\n([\s\S]*?)```/g)].map((m) => m[1])
    expect(blocks).toHaveLength(1)
    // The file's header comment (how the test feeds it addresses) is not repeated in the page.
    expect(blocks[0]).toBe(file.slice(file.indexOf('\nglobal\n') + 1))
  })

  it.runIf(hasHaproxy)('passes haproxy -c with its addresses in the environment', () => {
    const env: Record<string, string> = {
      PATH: process.env.PATH ?? '',
      ACDP_LB_REGISTRY_BIND: '127.0.0.1:18443',
      ACDP_LB_CONTROL_PLANE_BIND: '127.0.0.1:18444',
    }
    for (let i = 1; i <= 3; i++) {
      env[`ACDP_REGISTRY_${i}`] = `127.0.0.1:${18_500 + i}`
      env[`ACDP_CONTROL_PLANE_${i}`] = `127.0.0.1:${18_600 + i}`
    }
    const check = spawnSync('haproxy', ['-c', '-f', CONFIG_PATH], { env, encoding: 'utf8' })
    expect(`${check.stdout}${check.stderr}`).toMatch(/valid/i)
    expect(check.status).toBe(0)
  })
})
