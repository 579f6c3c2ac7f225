/** The console's static build, which the control plane serves at /console during the browser suites. */
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

const CONSOLE_DIR = fileURLToPath(new URL('../../', import.meta.url))
const PROTOCOL_DIR = fileURLToPath(new URL('../../../protocol/', import.meta.url))

/**
 * Builds the console when no build is present (CI builds first; a bare `vitest run` after a fresh clone still
 * works). The bundle imports `@acdp/protocol/verify` through the package's exports, i.e. its dist with the
 * "browser" map's platform swaps (which name dist files), so the protocol is compiled first when it is not.
 */
export async function ensureConsoleBuild(): Promise<void> {
  if (existsSync(join(CONSOLE_DIR, 'dist', 'index.html'))) return
  if (!existsSync(join(PROTOCOL_DIR, 'dist', 'verify.js'))) {
    const tsc = fileURLToPath(import.meta.resolve('typescript/bin/tsc'))
    await promisify(execFile)(process.execPath, [tsc, '-b', PROTOCOL_DIR])
  }
  const { build } = await import('vite')
  await build({ root: CONSOLE_DIR, configFile: join(CONSOLE_DIR, 'vite.config.ts'), logLevel: 'warn' })
}
