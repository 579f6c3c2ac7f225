/**
 * What the adapter suites share: the stack `acdp dev` wires (registry and control plane in-process on loopback
 * sockets, embedded SQLite in a temp directory, the registry's webhook feeding the control plane), a recorder
 * configuration pointed at it, and the reads the assertions need — the run and its lineage through the control
 * plane's API, and `acdp get --verify` run in-process for each context.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type RunningDevStack, runCli, startDevStack } from '@acdp/cli'
import { createProducerKey, type ProducerKey } from '@acdp/protocol'
import type { RecorderConfig } from '../src/core/index.js'

export interface RecordingStack {
  stack: RunningDevStack
  /** A recorder configuration for this stack: run notices wired, one key per role. */
  config(overrides?: Partial<RecorderConfig>): RecorderConfig
  keys: Record<string, ProducerKey>
  /** GET on the control plane with its API key; the parsed JSON body. */
  controlPlane(path: string): Promise<{ status: number; body: unknown }>
  /** Waits (bounded) until the run's lineage holds `count` nodes; returns run and lineage. */
  waitForRun(runId: string, count: number): Promise<{ run: RunView; lineage: LineageView }>
  /** `acdp get <ctx_id> --verify --json` in-process: exit code and the verification report. */
  verify(ctxId: string): Promise<{ code: number; verification: { ok: boolean; summary: string } }>
  close(): Promise<void>
}

export interface RunView {
  runId: string
  status: string
  scenarioId?: string
  [member: string]: unknown
}

export interface LineageView {
  nodes: Array<{ ctxId: string; agentId: string; contextType: string | null; step: number }>
  edges: Array<{ from: string; to: string }>
}

const WAIT_MS = 15_000

export async function startRecordingStack(roles: string[]): Promise<RecordingStack> {
  const dataDir = mkdtempSync(join(tmpdir(), 'acdp-integrations-'))
  const stack = await startDevStack({
    dataDir,
    host: '127.0.0.1',
    registryPort: 0,
    controlPlanePort: 0,
    logLevel: 'warn',
    writeLog: () => {},
  })
  const keys = Object.fromEntries(roles.map((role) => [role, createProducerKey()]))
  const controlPlane = async (path: string) => {
    const response = await fetch(`${stack.controlPlaneUrl}${path}`, {
      headers: { authorization: `Bearer ${stack.secrets.control_plane_api_key}` },
      signal: AbortSignal.timeout(5_000),
    })
    return { status: response.status, body: (await response.json()) as unknown }
  }
  return {
    stack,
    keys,
    config: (overrides = {}) => ({
      registryUrl: stack.registryUrl,
      keys,
      run: {
        scenarioId: 'integration-test',
        controlPlane: { url: stack.controlPlaneUrl, runSecret: stack.secrets.run_secret },
      },
      ...overrides,
    }),
    controlPlane,
    async waitForRun(runId, count) {
      const deadline = Date.now() + WAIT_MS
      for (;;) {
        const lineage = (await controlPlane(`/runs/${encodeURIComponent(runId)}/lineage`)).body as LineageView
        if (lineage.nodes.length >= count) {
          const run = (await controlPlane(`/runs/${encodeURIComponent(runId)}`)).body as RunView
          return { run, lineage }
        }
        if (Date.now() > deadline) {
          throw new Error(`run ${runId} has ${lineage.nodes.length} of ${count} contexts after ${WAIT_MS} ms`)
        }
        await new Promise((resolve) => setTimeout(resolve, 50))
      }
    },
    async verify(ctxId) {
      let out = ''
      const code = await runCli(['get', ctxId, '--verify', '--json', '--registry', stack.registryUrl], {
        stdout: (text) => (out += text),
        stderr: () => {},
        env: {},
        cwd: dataDir,
        fetch: globalThis.fetch,
        signal: new AbortController().signal,
      })
      const parsed = JSON.parse(out) as { verification: { ok: boolean; summary: string } }
      return { code, verification: parsed.verification }
    },
    async close() {
      await stack.close()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

/**
 * A fetch that answers 503 to every publish while `refuse(body)` says so: the registry's overload answer, so the
 * recorder's retries and then its failure policy are what the test sees.
 */
export function refusingFetch(refuse: (body: Record<string, unknown>) => boolean): typeof globalThis.fetch {
  return async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url
    if (init?.method === 'POST' && url.endsWith('/contexts') && typeof init.body === 'string') {
      const request = JSON.parse(init.body) as Record<string, unknown>
      if (refuse(request)) {
        return new Response(JSON.stringify({ error: { code: 'overloaded', message: 'test refuses this step' } }), {
          status: 503,
          headers: { 'content-type': 'application/json' },
        })
      }
    }
    return globalThis.fetch(input, init)
  }
}
