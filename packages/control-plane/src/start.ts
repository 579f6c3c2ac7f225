/**
 * Starting and stopping a listening control plane: used by main.ts (the `acdp-control-plane` bin) and by the
 * CLI, which runs the control plane in-process.
 */
import type { FastifyInstance } from 'fastify'
import { buildApp } from './app.js'
import type { ControlPlaneConfig } from './core/config.js'
import { type ControlPlaneDeps, closeDeps, createDeps } from './core/deps.js'

/** A listening control plane. */
export interface RunningControlPlane {
  app: FastifyInstance
  deps: ControlPlaneDeps
  /** Base URL it listens on, e.g. `http://127.0.0.1:3001`. */
  url: string
  /**
   * Graceful shutdown: readiness turns 503 (draining), waits SHUTDOWN_DRAIN_DELAY_MS so load balancers notice,
   * stops accepting connections and waits for in-flight requests (onClose hooks end live streams), then closes
   * the database. Bounded by SHUTDOWN_TIMEOUT_MS; resolves `false` when the deadline cut it short. Idempotent.
   */
  close(): Promise<boolean>
}

/**
 * Builds the dependencies (unless given), the app, and listens on config.server.host:port (port 0 = any free
 * port; read the actual one from `url`).
 */
export async function startControlPlane(
  config: ControlPlaneConfig,
  overrides: Partial<ControlPlaneDeps> = {},
): Promise<RunningControlPlane> {
  const deps = await createDeps(config, overrides)
  let app: FastifyInstance
  try {
    app = await buildApp(config, deps)
    await app.listen({ host: config.server.host, port: config.server.port })
  } catch (error) {
    await closeDeps(deps)
    throw error
  }
  const address = app.server.address()
  const port = typeof address === 'object' && address !== null ? address.port : config.server.port
  const host = config.server.host.includes(':') ? `[${config.server.host}]` : config.server.host
  let closing: Promise<boolean> | undefined
  return {
    app,
    deps,
    url: `http://${host === '0.0.0.0' ? '127.0.0.1' : host}:${port}`,
    close() {
      closing ??= shutDown(app, deps, config)
      return closing
    },
  }
}

async function shutDown(app: FastifyInstance, deps: ControlPlaneDeps, config: ControlPlaneConfig): Promise<boolean> {
  app.readiness.startDraining()
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), config.lifecycle.shutdownTimeoutMs)
    timer.unref()
  })
  const graceful = (async (): Promise<true> => {
    if (config.lifecycle.shutdownDrainDelayMs > 0) {
      await new Promise((resolve) => setTimeout(resolve, config.lifecycle.shutdownDrainDelayMs))
    }
    await app.close()
    return true
  })()
  try {
    const completed = await Promise.race([graceful, deadline])
    if (!completed) app.log.warn('graceful shutdown deadline reached; closing the database anyway')
    return completed
  } finally {
    clearTimeout(timer)
    await closeDeps(deps).catch((error: unknown) => app.log.error({ err: error }, 'closing the database failed'))
  }
}
