/**
 * What the console's browser tests share: a console build when none is present, axe-core's serious violations,
 * and the 390 px overflow probe. Chromium is the system's (/usr/bin/chromium), driven by playwright-core.
 */
import { execFile } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import type { Page } from 'playwright-core'

export const CHROMIUM = '/usr/bin/chromium'
export const hasChromium = existsSync(CHROMIUM)
export const CONSOLE_DIR = fileURLToPath(new URL('../', import.meta.url))
export const SCREENSHOTS = fileURLToPath(new URL('../../../docs/console/', import.meta.url))
const PROTOCOL_DIR = fileURLToPath(new URL('../../protocol/', import.meta.url))
const AXE_SOURCE = readFileSync(fileURLToPath(import.meta.resolve('axe-core/axe.min.js')), 'utf8')

/** Builds the protocol's dist (the bundle imports `@acdp/protocol/verify`) and the console when absent. */
export async function ensureConsoleBuild(): Promise<void> {
  if (existsSync(join(CONSOLE_DIR, 'dist', 'index.html'))) return
  if (!existsSync(join(PROTOCOL_DIR, 'dist', 'verify.js'))) {
    const tsc = fileURLToPath(import.meta.resolve('typescript/bin/tsc'))
    await promisify(execFile)(process.execPath, [tsc, '-b', PROTOCOL_DIR])
  }
  const { build } = await import('vite')
  await build({ root: CONSOLE_DIR, configFile: join(CONSOLE_DIR, 'vite.config.ts'), logLevel: 'warn' })
}

export interface AxeViolation {
  id: string
  impact: string | null
  help: string
  nodes: Array<{ target: string[] }>
}

/** axe-core over the current page; returns serious and critical violations. */
export async function seriousViolations(page: Page): Promise<AxeViolation[]> {
  // DevTools evaluation is not subject to the page's CSP, so axe runs without weakening the policy under test.
  await page.evaluate(AXE_SOURCE)
  const result = (await page.evaluate(
    `axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) })))`,
  )) as AxeViolation[]
  return result.filter((v) => v.impact === 'serious' || v.impact === 'critical')
}

/** The page's scroll width against its client width, with the first elements that stick out (scrollers excepted). */
export async function horizontalOverflow(
  page: Page,
): Promise<{ scrollWidth: number; clientWidth: number; wide: string[] }> {
  return (await page.evaluate(`(() => {
    const root = document.documentElement
    const wide = [...document.querySelectorAll('body *')]
      .filter((el) => el.getBoundingClientRect().right > root.clientWidth + 0.5)
      .filter((el) => !el.closest('.table-scroll, .graph-scroll, pre, .visually-hidden, .skip-link'))
      .slice(0, 5)
      .map((el) => el.tagName.toLowerCase() + '.' + el.className + ' ' + Math.round(el.getBoundingClientRect().right))
    return { scrollWidth: root.scrollWidth, clientWidth: root.clientWidth, wide }
  })()`)) as { scrollWidth: number; clientWidth: number; wide: string[] }
}
