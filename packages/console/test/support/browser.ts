/**
 * Browser-test support: the console build, axe-core and label checks, and the narrow-width overflow probe, shared
 * by the headless-Chromium suites (playwright-core driving the Debian `chromium`).
 */
import { execFile } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import type { Page } from 'playwright-core'

export const CHROMIUM = '/usr/bin/chromium'
export const hasChromium = existsSync(CHROMIUM)
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking']
export const SCREENSHOTS = fileURLToPath(new URL('../../../../docs/console/', import.meta.url))
const CONSOLE_DIR = fileURLToPath(new URL('../../', import.meta.url))
const PROTOCOL_DIR = fileURLToPath(new URL('../../../protocol/', import.meta.url))
const AXE_SOURCE = readFileSync(fileURLToPath(import.meta.resolve('axe-core/axe.min.js')), 'utf8')

/**
 * Builds the console when no build is present (the bundle imports `@acdp/protocol/verify` through the package's
 * dist, so the protocol is compiled first when it is not).
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

/** Form controls in main with neither a label, an aria-label nor text content. */
export function unlabelledControls(page: Page): Promise<number> {
  return page.evaluate(
    `[...document.querySelectorAll('main input, main select, main textarea, main button')].filter((el) => !(el.labels && el.labels.length) && !el.getAttribute('aria-label') && !(el.textContent || '').trim()).length`,
  ) as Promise<number>
}

/** The page's horizontal overflow: document widths and the first elements past the right edge (scrollers aside). */
export function horizontalOverflow(page: Page): Promise<{ scrollWidth: number; clientWidth: number; wide: string[] }> {
  return page.evaluate(`(() => {
    const root = document.documentElement
    const wide = [...document.querySelectorAll('body *')]
      .filter((el) => el.getBoundingClientRect().right > root.clientWidth + 0.5)
      .filter((el) => !el.closest('.table-scroll, .graph-scroll, pre, .visually-hidden, .skip-link'))
      .slice(0, 5)
      .map((el) => el.tagName.toLowerCase() + '.' + el.className + ' ' + Math.round(el.getBoundingClientRect().right))
    return { scrollWidth: root.scrollWidth, clientWidth: root.clientWidth, wide }
  })()`) as Promise<{ scrollWidth: number; clientWidth: number; wide: string[] }>
}
