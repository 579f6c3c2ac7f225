/**
 * The console's exploration pages in headless Chromium against the dev stack (both services on loopback sockets):
 * the Contexts search finds a context published during the test and opens its context page; the pages carry no
 * serious axe-core violation and do not scroll sideways at 390 px. Screenshots go to docs/console/.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createProducer, createProducerKey, type Producer, type ProducerKey } from '@acdp/protocol'
import { type Browser, chromium, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningDevStack, startDevStack } from '../../cli/src/dev/dev-stack.js'
import {
  CHROMIUM,
  ensureConsoleBuild,
  hasChromium,
  horizontalOverflow,
  SCREENSHOTS,
  seriousViolations,
} from './browser-support.js'

const WAIT_MS = 15_000

describe.skipIf(!hasChromium)('console exploration pages in headless Chromium', () => {
  let dataDir: string
  let stack: RunningDevStack
  let browser: Browser
  let page: Page
  let key: ProducerKey
  let producer: Producer
  const word = `quokka${Date.now().toString(36)}`
  const runId = `explore-run-${Date.now().toString(36)}`
  const pageErrors: string[] = []
  const narrow: Array<[string, string]> = []

  const goto = async (hash: string) => {
    await page.goto('about:blank')
    await page.goto(`${stack.controlPlaneUrl}/console/${hash}`)
    await page.waitForSelector('main h1', { timeout: WAIT_MS })
  }

  beforeAll(async () => {
    await ensureConsoleBuild()
    dataDir = mkdtempSync(join(tmpdir(), 'acdp-console-explore-'))
    stack = await startDevStack({
      dataDir,
      host: '127.0.0.1',
      registryPort: 0,
      controlPlanePort: 0,
      logLevel: 'warn',
      writeLog: () => {},
    })
    key = createProducerKey()
    producer = createProducer({ registryUrl: stack.registryUrl, key })
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
    })
    page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage()
    page.on('pageerror', (error) => pageErrors.push(error.message))
    await page.goto(`${stack.controlPlaneUrl}/console/`)
    await page.fill('#api-key', stack.secrets.control_plane_api_key)
    await page.keyboard.press('Enter')
    await page.waitForSelector('[data-testid=tenant]', { timeout: WAIT_MS })
  }, 120_000)

  afterAll(async () => {
    await browser?.close()
    await stack?.close()
    if (dataDir) rmSync(dataDir, { recursive: true, force: true })
  })

  it('the Contexts search finds a published context by a word of its title and opens its page', async () => {
    const found = await producer.publish({ type: 'analysis', title: `${word} survey` }, { runId })
    await producer.publish({ type: 'analysis', title: 'something else entirely' }, { runId })
    await goto('#/contexts')
    expect(await page.textContent('main h1')).toBe('Contexts')
    await page.getByLabel('Words (title, summary, tags)').fill(word)
    await page.getByLabel('Context type').fill('analysis')
    await page.getByRole('button', { name: 'Search' }).click()
    const row = page.locator(`tr[data-match="${found.ctxId}"]`)
    await row.waitFor({ timeout: WAIT_MS })
    // Only the matching context, counted by the registry's own estimate.
    expect(await page.locator('tr[data-match]').count()).toBe(1)
    expect(await page.getAttribute('[data-total]', 'data-total')).toBe('1')
    expect(decodeURIComponent(new URL(page.url()).hash)).toBe(`#/contexts?q=${word}&type=analysis`)
    expect(await seriousViolations(page)).toEqual([])
    await page.screenshot({ path: join(SCREENSHOTS, 'contexts-search.png'), fullPage: true })
    narrow.push(['contexts-search', `#/contexts?q=${word}`])
    await row.getByRole('link', { name: `${word} survey` }).click()
    await expect.poll(() => page.textContent('main h1'), { timeout: WAIT_MS }).toBe('Context')
    expect(decodeURIComponent(new URL(page.url()).hash)).toBe(`#/contexts/${found.ctxId}`)
    await page.waitForSelector(`.inspector[data-ctx-id="${found.ctxId}"] [data-subject=body][data-mark=verified]`, {
      timeout: WAIT_MS,
    })
  })

  it('no exploration page scrolls sideways at 390 px, and none has a serious axe violation', async () => {
    await page.setViewportSize({ width: 390, height: 844 })
    try {
      for (const [name, hash] of narrow) {
        await goto(hash)
        await expect
          .poll(() => page.locator('main [role=status]', { hasText: /^(Loading|Retrieving|Signing)/ }).count(), {
            timeout: WAIT_MS,
          })
          .toBe(0)
        const overflow = await horizontalOverflow(page)
        expect(overflow.scrollWidth, `${hash}: ${overflow.wide.join(' | ')}`).toBeLessThanOrEqual(overflow.clientWidth)
        expect(await seriousViolations(page), hash).toEqual([])
        await page.screenshot({ path: join(SCREENSHOTS, `narrow-${name}.png`), fullPage: true })
      }
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 })
    }
    expect(narrow.length).toBeGreaterThan(0)
    expect(pageErrors).toEqual([])
  })
})
