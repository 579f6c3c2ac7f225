/**
 * What recording costs an agent step: the latency one step of a framework gains when @acdp/integrations records
 * it, with the registry and the control plane on loopback (the stack `acdp dev` wires, in a child process so its
 * CPU is not the bench's). Not a test: it measures and prints.
 *
 * A step is one `generateText` call on the AI SDK's MockLanguageModelV4 (the model answers at once, so what is
 * measured is the SDK plus the recording), or one LangGraph `invoke` of a one-node graph on FakeListChatModel.
 * Variants, per framework: `bare` (no recording), `record-or-fail` (the step waits for its context to be signed,
 * published and acknowledged) and `best-effort` (the step hands its record over; the publication happens in the
 * background and is flushed after the round, outside the timing). Rounds run interleaved (A B C C B A …) so a
 * change of machine load falls on every variant alike. Each recorder publishes at most 50 contexts (a fresh key
 * after that) to stay within the registry's per-agent publish budget (60 per minute by default).
 *
 *   npm run bench:integrations                       # BENCH_ROUNDS=4 BENCH_STEPS=50 by default
 *   flock /tmp/acdp-bench.lock npm run bench:integrations
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { findFreePort } from '@acdp/cli'
import { createRecorder, type FailurePolicy, type Recorder, type RecorderConfig } from '@acdp/integrations'
import { acdpMiddleware } from '@acdp/integrations/ai-sdk'
import { acdpLineage, recordNode } from '@acdp/integrations/langgraph'
import { createProducerKey } from '@acdp/protocol'
import { FakeListChatModel } from '@langchain/core/utils/testing'
import { Annotation, END, START, StateGraph } from '@langchain/langgraph'
import { generateText, wrapLanguageModel } from 'ai'
import { MockLanguageModelV4 } from 'ai/test'

/** A variable specifier: Node runs the .ts file itself, which TypeScript only accepts in type positions. */
const MACHINE_MODULE: string = './machine.ts'
const { describeMachine, formatMachine } = (await import(MACHINE_MODULE)) as typeof import('./machine.ts')

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const ROUNDS = Number(process.env['BENCH_ROUNDS'] ?? 4)
const STEPS = Math.min(Number(process.env['BENCH_STEPS'] ?? 50), 50)
const VARIANTS = ['bare', 'record-or-fail', 'best-effort'] as const
type Variant = (typeof VARIANTS)[number]

interface Stack {
  child: ChildProcess
  registryUrl: string
  controlPlaneUrl: string
  runSecret: string
  dataDir: string
}

async function startStack(): Promise<Stack> {
  const dataDir = mkdtempSync(join(tmpdir(), 'acdp-bench-integrations-'))
  const [registryPort, controlPlanePort] = [await findFreePort('127.0.0.1'), await findFreePort('127.0.0.1')]
  const child = spawn(
    process.execPath,
    [
      join(ROOT, 'packages/cli/bin/acdp.js'),
      'dev',
      '--data-dir',
      dataDir,
      '--registry-port',
      String(registryPort),
      '--control-plane-port',
      String(controlPlanePort),
      '--log-level',
      'warn',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NODE_ENV: 'development' } },
  )
  let output = ''
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`stack not up in 60 s:\n${output}`)), 60_000)
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      if (output.includes('ACDP dev stack is up')) {
        clearTimeout(timer)
        resolve()
      }
    }
    child.stdout!.on('data', onData)
    child.stderr!.on('data', onData)
    child.once('exit', (code) => reject(new Error(`stack exited with ${code}:\n${output}`)))
  })
  const secrets = JSON.parse(readFileSync(join(dataDir, 'dev-secrets.json'), 'utf8')) as { run_secret: string }
  return {
    child,
    registryUrl: `http://127.0.0.1:${registryPort}`,
    controlPlaneUrl: `http://127.0.0.1:${controlPlanePort}`,
    runSecret: secrets.run_secret,
    dataDir,
  }
}

function recorderFor(stack: Stack, framework: 'ai-sdk' | 'langgraph', policy: FailurePolicy): Recorder {
  const config: RecorderConfig = {
    registryUrl: stack.registryUrl,
    key: createProducerKey(),
    run: {
      id: `bench-${framework}-${policy}-${Date.now()}`,
      controlPlane: { url: stack.controlPlaneUrl, runSecret: stack.runSecret },
    },
    failurePolicy: policy,
  }
  return createRecorder(framework, config)
}

const USAGE = {
  inputTokens: { total: 10, noCache: 10, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: 5, text: 5, reasoning: undefined },
}
const ANSWER = 'BTC/USD trades at 67,250.5, sampled from three venues; 24 h range 65,900 to 68,600.'

/** One round of `STEPS` AI SDK steps; returns each step's milliseconds. */
async function aiSdkRound(stack: Stack, variant: Variant): Promise<number[]> {
  const recorder = variant === 'bare' ? undefined : recorderFor(stack, 'ai-sdk', variant)
  const base = new MockLanguageModelV4({
    modelId: 'mock',
    doGenerate: async () => ({
      content: [{ type: 'text', text: ANSWER }],
      finishReason: { unified: 'stop', raw: 'stop' },
      usage: USAGE,
      warnings: [],
    }),
  })
  const model =
    recorder === undefined
      ? base
      : wrapLanguageModel({ model: base, middleware: acdpMiddleware(recorder, { agent: 'research' }) })
  const times: number[] = []
  for (let step = 0; step < STEPS; step += 1) {
    const started = performance.now()
    await generateText({ model, prompt: 'Find the BTC price.' })
    times.push(performance.now() - started)
  }
  await recorder?.flush()
  check(recorder)
  return times
}

const DeskState = Annotation.Root({ topic: Annotation<string>(), findings: Annotation<string>(), acdp: acdpLineage })

/** One round of `STEPS` LangGraph invocations of a one-node graph; returns each invocation's milliseconds. */
async function langGraphRound(stack: Stack, variant: Variant): Promise<number[]> {
  const recorder = variant === 'bare' ? undefined : recorderFor(stack, 'langgraph', variant)
  const chat = new FakeListChatModel({ responses: [ANSWER] })
  const node = async (state: typeof DeskState.State) => ({ findings: String((await chat.invoke(state.topic)).content) })
  const graph = new StateGraph(DeskState)
    .addNode('research', recorder === undefined ? node : recordNode(recorder, 'research', node))
    .addEdge(START, 'research')
    .addEdge('research', END)
    .compile()
  const times: number[] = []
  for (let step = 0; step < STEPS; step += 1) {
    const started = performance.now()
    await graph.invoke({ topic: 'BTC' })
    times.push(performance.now() - started)
  }
  await recorder?.flush()
  check(recorder)
  return times
}

/** A bench whose publications failed would measure the failure path: refuse to report it. */
function check(recorder: Recorder | undefined): void {
  if (recorder === undefined) return
  const stats = recorder.stats()
  if (stats.published !== STEPS || stats.failed !== 0 || stats.dropped !== 0) {
    throw new Error(`recorder did not publish every step: ${JSON.stringify(stats)}`)
  }
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!
}

function summarize(times: number[]) {
  const sorted = [...times].sort((a, b) => a - b)
  return {
    n: sorted.length,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    mean: times.reduce((a, b) => a + b, 0) / times.length,
  }
}

const machine = describeMachine()
console.log(`bench:integrations  ${new Date().toISOString()}  rounds ${ROUNDS} x ${STEPS} steps per variant`)
console.log(formatMachine(machine))
const stack = await startStack()
try {
  const frameworks = { 'ai-sdk': aiSdkRound, langgraph: langGraphRound } as const
  // Warm-up: one round of each variant per framework, not reported (JIT, connection pools, SQLite pages).
  for (const round of Object.values(frameworks)) for (const variant of VARIANTS) await round(stack, variant)
  const results: Record<string, Record<Variant, number[]>> = {}
  for (const [name, round] of Object.entries(frameworks)) {
    const samples: Record<Variant, number[]> = { bare: [], 'record-or-fail': [], 'best-effort': [] }
    for (let index = 0; index < ROUNDS; index += 1) {
      const order = index % 2 === 0 ? VARIANTS : [...VARIANTS].reverse()
      for (const variant of order) samples[variant].push(...(await round(stack, variant)))
    }
    results[name] = samples
  }
  const [one, five] = loadavg()
  console.log(`load average after: ${one!.toFixed(2)} (1 min), ${five!.toFixed(2)} (5 min)\n`)
  console.log('framework   variant          steps   p50 ms   p99 ms  mean ms   added p50   added p99')
  const report: Record<string, unknown> = {}
  for (const [name, samples] of Object.entries(results)) {
    const bare = summarize(samples.bare)
    for (const variant of VARIANTS) {
      const s = summarize(samples[variant])
      const added = variant === 'bare' ? ['', ''] : [(s.p50 - bare.p50).toFixed(3), (s.p99 - bare.p99).toFixed(3)]
      console.log(
        `${name.padEnd(11)} ${variant.padEnd(15)} ${String(s.n).padStart(6)} ${s.p50.toFixed(3).padStart(8)} ${s.p99.toFixed(3).padStart(8)} ${s.mean.toFixed(3).padStart(8)} ${added[0]!.padStart(11)} ${added[1]!.padStart(11)}`,
      )
      report[`${name}/${variant}`] = s
    }
  }
  console.log(`\n${JSON.stringify({ machine, rounds: ROUNDS, steps: STEPS, report })}`)
} finally {
  stack.child.kill('SIGINT')
  await new Promise((resolve) => stack.child.once('exit', resolve))
  rmSync(stack.dataDir, { recursive: true, force: true })
}
