/**
 * The BUILT command line, as a user runs it: `tsc -b packages/cli` in beforeAll, then `acdp dev` as a child
 * process on free ports and a temp data directory, and `acdp demo`, `acdp runs --json`, `acdp get --verify`
 * against it, asserting on output and exit codes. Ctrl-C (SIGINT) must stop the stack gracefully with exit 0.
 * Every wait is bounded.
 */
import { type ChildProcess, execFile, execFileSync, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MARKET_WATCH_STEPS } from '../../packages/cli/src/demo/market-watch-scenario.js'
import { findFreePort } from '../../packages/cli/src/index.js'

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)))
const BIN = join(ROOT, 'packages/cli/dist/bin/acdp.js')
const NODE = process.execPath
const START_TIMEOUT_MS = 30_000
const COMMAND_TIMEOUT_MS = 30_000

interface CommandResult {
  code: number
  stdout: string
  stderr: string
}

/** Runs the built CLI once; resolves with its exit code and output (never rejects on a non-zero exit). */
function acdp(args: string[], env: Record<string, string>): Promise<CommandResult> {
  return new Promise((resolvePromise) => {
    execFile(
      NODE,
      [BIN, ...args],
      { cwd: ROOT, env: { ...process.env, ...env, NO_COLOR: '1' }, timeout: COMMAND_TIMEOUT_MS },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1
        resolvePromise({ code, stdout, stderr })
      },
    )
  })
}

describe('the built acdp CLI against a stack it started', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'acdp-cli-e2e-'))
  const env = { ACDP_DATA_DIR: dataDir }
  let dev: ChildProcess
  let devOutput = ''
  let devExit: Promise<number | null>

  beforeAll(async () => {
    execFileSync(NODE, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-b', 'packages/cli'], {
      cwd: ROOT,
      stdio: 'pipe',
      timeout: 240_000,
    })
    const [registryPort, controlPlanePort] = [await findFreePort('127.0.0.1'), await findFreePort('127.0.0.1')]
    dev = spawn(
      NODE,
      [BIN, 'dev', '--registry-port', String(registryPort), '--control-plane-port', String(controlPlanePort)],
      {
        cwd: ROOT,
        env: { ...process.env, ...env, NO_COLOR: '1', NODE_ENV: 'development' },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    )
    devExit = new Promise((resolvePromise) => dev.once('exit', (code) => resolvePromise(code)))
    await new Promise<void>((resolvePromise, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`acdp dev not up within ${START_TIMEOUT_MS} ms:\n${devOutput}`)),
        START_TIMEOUT_MS,
      )
      const onData = (chunk: Buffer) => {
        devOutput += chunk.toString()
        if (devOutput.includes('ACDP dev stack is up')) {
          clearTimeout(timer)
          resolvePromise()
        }
      }
      dev.stdout!.on('data', onData)
      dev.stderr!.on('data', onData)
      dev.once('exit', (code) => {
        clearTimeout(timer)
        reject(new Error(`acdp dev exited with ${code} before it was up:\n${devOutput}`))
      })
    })
  }, 300_000)

  afterAll(async () => {
    if (dev.exitCode === null) dev.kill('SIGKILL')
    rmSync(dataDir, { recursive: true, force: true })
  })

  let runId = ''
  let lastCtxId = ''

  it('acdp dev prints the banner with both URLs, the docs URL and the demo command', () => {
    expect(devOutput).toMatch(/registry {8}http:\/\/127\.0\.0\.1:\d+/)
    expect(devOutput).toMatch(/control plane {3}http:\/\/127\.0\.0\.1:\d+/)
    expect(devOutput).toMatch(/API docs {8}http:\/\/127\.0\.0\.1:\d+\/docs/)
    expect(devOutput).toContain(' demo')
  })

  it('acdp demo plays the scenario and prints the lineage the control plane serves (exit 0)', async () => {
    const result = await acdp(['demo'], env)
    expect(result.stderr).toBe('')
    expect(result.code).toBe(0)
    const match = /^run (demo-\S+): 10 contexts, (\d+) derived_from edges$/m.exec(result.stdout)
    expect(match).not.toBeNull()
    runId = match![1]!
    const derivedFromLinks = MARKET_WATCH_STEPS.reduce((sum, step) => sum + step.derivedFrom.length, 0)
    expect(Number(match![2])).toBe(derivedFromLinks)
    expect(result.stdout).toContain('supersedes step 4')
    const ctxIds = result.stdout.match(/acdp:\/\/localhost\/[0-9a-f-]{36}/g) ?? []
    expect(new Set(ctxIds).size).toBe(10)
    lastCtxId = ctxIds.at(-1)!
  })

  it('acdp runs --json lists the demo run as completed (exit 0)', async () => {
    const result = await acdp(['runs', '--json'], env)
    expect(result.code).toBe(0)
    const page = JSON.parse(result.stdout) as { data: Array<Record<string, unknown>>; total: number }
    expect(page.data.find((run) => run['runId'] === runId)).toMatchObject({
      status: 'completed',
      scenarioId: 'market-watch',
    })
  })

  it('acdp run <id> --json returns the run and its ten-node lineage (exit 0)', async () => {
    const result = await acdp(['run', runId, '--json'], env)
    expect(result.code).toBe(0)
    const { run, lineage } = JSON.parse(result.stdout)
    expect(run).toMatchObject({ runId, status: 'completed' })
    expect(lineage.nodes).toHaveLength(10)
  })

  it('acdp get --verify checks a demo context locally (exit 0)', async () => {
    const result = await acdp(['get', lastCtxId, '--verify'], env)
    expect(result.code).toBe(0)
    for (const stage of ['schema', 'producer_content_hash', 'key_binding', 'did_resolution', 'signature']) {
      expect(result.stdout).toMatch(new RegExp(`^ok +${stage} `, 'm'))
    }
    // The dev registry runs search, so the producer's key revocations were looked up (none).
    expect(result.stdout).toMatch(/^ok +key_revocation +no known revocation names key sha256:/m)
    // The verdict line says "verified" only when every stage the registry's profiles call for is ok (a witness
    // cosignature may not exist yet this soon after the demo, and the dev registry does not require one);
    // otherwise it names what is missing.
    const lines = result.stdout.trimEnd().split('\n')
    const notCalledFor =
      /\(not called for by the registry's profiles: ([^)]*)\)/.exec(lines.at(-1) ?? '')?.[1]?.split(', ') ?? []
    const everyStageOk = lines
      .map((line) => /^(ok|FAIL|not available|not checked) +(\S+)/.exec(line))
      .filter((match) => match !== null && !notCalledFor.includes(match[2]!))
      .every((match) => match![1] === 'ok')
    expect(lines.at(-1)).toMatch(
      everyStageOk
        ? /^verified: schema, producer_content_hash, key_binding, did_resolution, signature\b/
        : /^body, signature.* verified; /,
    )
  })

  it('acdp get --verify --json reports every check as passed', async () => {
    const result = await acdp(['get', lastCtxId, '--verify', '--json'], env)
    expect(result.code).toBe(0)
    const { context, verification } = JSON.parse(result.stdout)
    expect(context.body.ctx_id).toBe(lastCtxId)
    expect(verification.ok).toBe(true)
  })

  it('acdp get of an unknown context exits 1 with the registry’s not_found on one line', async () => {
    const result = await acdp(['get', 'acdp://localhost/4f1d4f10-7b2a-4c3e-8d5b-2a6f81c4e9b7', '--verify'], env)
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(/^acdp get: not_found: .*\(HTTP 404\)\n$/)
  })

  it('a usage error exits 2 and an unreachable server exits 3, each with one line', async () => {
    const usage = await acdp(['runs', '--limit', 'many'], env)
    expect(usage.code).toBe(2)
    expect(usage.stderr.trimEnd().split('\n')).toHaveLength(1)
    const port = await findFreePort('127.0.0.1')
    const unreachable = await acdp(['runs', '--control-plane', `http://127.0.0.1:${port}`], env)
    expect(unreachable.code).toBe(3)
    expect(unreachable.stderr).toMatch(/^acdp runs: unreachable: /)
  })

  it('acdp keygen + acdp publish reach a running acdp watch through the webhook (all exit 0)', async () => {
    // Watching the run, not the whole tenant: earlier tests' reads emit context_retrieved events whose webhooks
    // may still be arriving, and one of them would otherwise be the first line.
    const watch = spawn(NODE, [BIN, 'watch', '--run', 'cli-e2e-run', '--count', '1', '--json'], {
      cwd: ROOT,
      env: { ...process.env, ...env, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let watchOut = ''
    let watchErr = ''
    watch.stdout.on('data', (chunk: Buffer) => {
      watchOut += chunk.toString()
    })
    const watchExit = new Promise<number | null>((resolvePromise) => watch.once('exit', (code) => resolvePromise(code)))
    try {
      await new Promise<void>((resolvePromise, reject) => {
        const timer = setTimeout(() => reject(new Error(`acdp watch did not connect: ${watchErr}`)), 10_000)
        watch.stderr.on('data', (chunk: Buffer) => {
          watchErr += chunk.toString()
          if (watchErr.includes('watching ')) {
            clearTimeout(timer)
            resolvePromise()
          }
        })
      })
      const keyFile = join(dataDir, 'cli-e2e-key.json')
      const bodyFile = join(dataDir, 'cli-e2e-body.json')
      const keygen = await acdp(['keygen', '--out', keyFile], env)
      expect(keygen.code).toBe(0)
      const did = keygen.stdout.trim()
      expect(did).toMatch(/^did:key:z6Mk/)
      writeFileSync(bodyFile, JSON.stringify({ title: 'published by the e2e test', type: 'analysis' }))
      const publish = await acdp(['publish', bodyFile, '--key', keyFile, '--run-id', 'cli-e2e-run'], env)
      expect(publish.code).toBe(0)
      const [ctxId, location] = publish.stdout.trim().split('\n')
      expect(ctxId).toMatch(/^acdp:\/\/localhost\/[0-9a-f-]{36}$/)
      const { registry_url: registryUrl } = JSON.parse(readFileSync(join(dataDir, 'dev-stack.json'), 'utf8'))
      expect(location).toBe(`Location: ${registryUrl}/contexts/${encodeURIComponent(ctxId!)}`)
      const code = await Promise.race([
        watchExit,
        new Promise((resolvePromise) => setTimeout(() => resolvePromise('timeout'), 10_000)),
      ])
      expect(code).toBe(0)
      const line = JSON.parse(watchOut.trim().split('\n')[0]!)
      expect(line).toMatchObject({ event: 'context_published', data: { runId: 'cli-e2e-run', ctxId, agentId: did } })
    } finally {
      if (watch.exitCode === null) watch.kill('SIGKILL')
    }
  })

  it('Ctrl-C stops both services gracefully with exit 0', async () => {
    dev.kill('SIGINT')
    const code = await Promise.race([
      devExit,
      new Promise((resolvePromise) => setTimeout(() => resolvePromise('timeout'), 15_000)),
    ])
    expect(code).toBe(0)
    expect(devOutput).toContain('both services stopped')
  })
})
