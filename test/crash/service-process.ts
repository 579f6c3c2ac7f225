/**
 * A service running as its real, built bin in a child process: started with its configuration, waited for
 * until /healthz answers, killed with SIGKILL (no shutdown hook runs) or stopped with SIGTERM.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { createServer } from 'node:net'
import { fileURLToPath } from 'node:url'

export const REPOSITORY_ROOT = fileURLToPath(new URL('../..', import.meta.url))

/** The committed launchers of both services (they load dist/, so `npm run build` comes first). */
export const BINS = {
  registry: `${REPOSITORY_ROOT}packages/registry/bin/acdp-registry.js`,
  controlPlane: `${REPOSITORY_ROOT}packages/control-plane/bin/acdp-control-plane.js`,
} as const

export interface ServiceSpec {
  bin: string
  args: string[]
  env: Record<string, string>
  port: number
}

export class ServiceProcess {
  #child: ChildProcess | undefined
  #stderr = ''

  constructor(readonly spec: ServiceSpec) {}

  get baseUrl(): string {
    return `http://127.0.0.1:${this.spec.port}`
  }

  /** The child's pid while it runs. */
  get pid(): number | undefined {
    return this.#child?.pid
  }

  /**
   * Starts the bin and resolves once GET /healthz answers 200 (rejects with its stderr if it exits first). The
   * default deadline fits a start on a loaded 2-core machine; it bounds a hang and is never asserted as a timing.
   */
  async start(timeoutMs = 90_000): Promise<void> {
    this.#stderr = ''
    // The node running this suite (Node 24) runs the bin too.
    const child = spawn(process.execPath, [this.spec.bin, ...this.spec.args], {
      env: { PATH: process.env.PATH ?? '', ...this.spec.env },
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    this.#child = child
    child.stderr?.on('data', (chunk: Buffer) => {
      if (this.#stderr.length < 20_000) this.#stderr += chunk.toString('utf8')
    })
    const deadline = Date.now() + timeoutMs
    while (Date.now() < deadline) {
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new Error(
          `${this.spec.bin} exited (${child.exitCode ?? child.signalCode}) while starting:\n${this.#stderr}`,
        )
      }
      try {
        const answer = await fetch(`${this.baseUrl}/healthz`, { signal: AbortSignal.timeout(1000) })
        if (answer.status === 200) return
      } catch {
        // not listening yet
      }
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    this.#child.kill('SIGKILL')
    throw new Error(`${this.spec.bin} did not answer /healthz within ${timeoutMs} ms:\n${this.#stderr}`)
  }

  /** SIGKILL, then waits for the process to be gone. */
  async kill(): Promise<void> {
    await this.#signal('SIGKILL')
  }

  /** SIGTERM (graceful shutdown), then waits for the exit. */
  async stop(): Promise<void> {
    await this.#signal('SIGTERM')
  }

  /** What the process wrote on stderr since its last start. */
  get stderr(): string {
    return this.#stderr
  }

  async #signal(signal: NodeJS.Signals): Promise<void> {
    const child = this.#child
    if (!child || child.exitCode !== null || child.signalCode !== null) return
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
    child.kill(signal)
    await exited
  }
}

/** A free loopback TCP port (bound and released; the bins take a fixed port). */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      const port = typeof address === 'object' && address !== null ? address.port : 0
      server.close(() => resolve(port))
    })
  })
}
