/**
 * The stack a browser suite runs against: the dev stack's registry and control plane on loopback sockets (ports
 * chosen by the kernel), wired by webhook, the console served by the control plane, data in a fresh temporary
 * folder that closing removes.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { type RunningDevStack, startDevStack } from '../../../cli/src/dev/dev-stack.js'

export interface ConsoleStack {
  stack: RunningDevStack
  /** Closes both services, then removes the data folder. */
  close(): Promise<void>
}

export interface ConsoleStackOptions {
  /** Prefixes the data folder's name. */
  name: string
  /** The control plane's configuration on top of the dev stack's. */
  controlPlaneEnv?: Record<string, string>
}

export async function startConsoleStack({ name, controlPlaneEnv }: ConsoleStackOptions): Promise<ConsoleStack> {
  const dataDir = mkdtempSync(join(tmpdir(), `acdp-${name}-`))
  let stack: RunningDevStack
  try {
    stack = await startDevStack({
      dataDir,
      host: '127.0.0.1',
      registryPort: 0,
      controlPlanePort: 0,
      logLevel: 'warn',
      writeLog: () => {},
      ...(controlPlaneEnv === undefined ? {} : { controlPlaneEnv }),
    })
  } catch (error) {
    rmSync(dataDir, { recursive: true, force: true })
    throw error
  }
  return {
    stack,
    close: async () => {
      try {
        await stack.close()
      } finally {
        rmSync(dataDir, { recursive: true, force: true })
      }
    },
  }
}
