/** Accessibility checks of the current page: axe-core's serious and critical violations, unlabelled controls. */
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import type { Page } from 'playwright-core'

const AXE_SOURCE = readFileSync(fileURLToPath(import.meta.resolve('axe-core/axe.min.js')), 'utf8')

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
