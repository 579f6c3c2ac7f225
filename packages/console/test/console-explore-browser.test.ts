/**
 * The console's exploration pages in headless Chromium against the dev stack (both services on loopback sockets):
 * the Contexts search finds a context published during the test and opens its context page; the lineage explorer
 * shows a supersession, a retraction and a republish, the current version and its verified head receipt; the pages carry no
 * serious axe-core violation and do not scroll sideways at 390 px. Screenshots go to docs/console/.
 */
import { join } from 'node:path'
import { createProducer, createProducerKey, type Producer, type ProducerKey } from '@acdp/protocol'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunningDevStack } from '../../cli/src/dev/dev-stack.js'
import { seriousViolations } from './support/accessibility.js'
import { hasChromium, launchChromium, warnWhenChromiumAbsent } from './support/chromium.js'
import { ensureConsoleBuild } from './support/console-build.js'
import { openConsolePage, SCREENSHOTS, signIn, waitForPageData, WAIT_MS } from './support/console-session.js'
import { type ConsoleStack, startConsoleStack } from './support/console-stack.js'
import { postLifecycleEvent } from './support/lifecycle-events.js'
import { DESKTOP_VIEWPORT, horizontalOverflow, NARROW_VIEWPORT } from './support/page-layout.js'

warnWhenChromiumAbsent('console-explore-browser')

describe.skipIf(!hasChromium)('console exploration pages in headless Chromium', () => {
  let running: ConsoleStack
  let stack: RunningDevStack
  let browser: Browser
  let page: Page
  let key: ProducerKey
  let producer: Producer
  const word = `quokka${Date.now().toString(36)}`
  const runId = `explore-run-${Date.now().toString(36)}`
  const pageErrors: string[] = []
  const narrow: Array<[string, string]> = []

  const goto = (hash: string) => openConsolePage(page, stack.controlPlaneUrl, hash)

  beforeAll(async () => {
    await ensureConsoleBuild()
    running = await startConsoleStack({ name: 'console-explore' })
    stack = running.stack
    key = createProducerKey()
    producer = createProducer({ registryUrl: stack.registryUrl, key })
    browser = await launchChromium()
    page = await (await browser.newContext({ viewport: DESKTOP_VIEWPORT })).newPage()
    page.on('pageerror', (error) => pageErrors.push(error.message))
    await signIn(page, stack.controlPlaneUrl, stack.secrets.control_plane_api_key)
  }, 120_000)

  afterAll(async () => {
    await browser?.close()
    await running?.close()
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

  const lifecycle = (ctxId: string, action: 'retract' | 'republish', reason?: string) =>
    postLifecycleEvent(stack.registryUrl, key, ctxId, action, reason)

  it('the lineage explorer shows a supersession, a retraction and a republish, and verifies the head receipt', async () => {
    const v1 = await producer.publish({ type: 'analysis', title: 'forecast, first cut' })
    const v2 = await producer.publish({ type: 'analysis', title: 'forecast, revised' }, { supersedes: v1.ctxId })
    await lifecycle(v2.ctxId, 'retract', 'input series was wrong')
    await lifecycle(v2.ctxId, 'republish')
    const lineageId = String((v1.response as { lineage_id?: unknown }).lineage_id)
    // Reached from the context page.
    await goto(`#/contexts/${encodeURIComponent(v1.ctxId)}`)
    const link = page.locator(`a[data-lineage-link="${lineageId}"]`)
    await link.waitFor({ timeout: WAIT_MS })
    await link.click()
    await expect.poll(() => page.textContent('main h1'), { timeout: WAIT_MS }).toBe('Lineage')
    await page.waitForSelector(`[data-current="${v2.ctxId}"]`, { timeout: WAIT_MS })
    expect(await page.getAttribute('tr[data-version="1"]', 'data-status')).toBe('superseded')
    expect(await page.getAttribute('tr[data-version="2"]', 'data-status')).toBe('active')
    expect(await page.textContent('tr[data-version="2"]')).toContain('(current)')
    const kinds = await page
      .locator('.lineage-history li')
      .evaluateAll((items) => items.map((li) => li.getAttribute('data-kind')))
    expect(kinds).toEqual(['published', 'superseded', 'retracted', 'republished'])
    expect(await page.textContent('.lineage-history li[data-kind=retracted]')).toContain('input series was wrong')
    // The head receipt, checked in the browser against the registry's relayed DID document.
    await page.waitForSelector('.head-receipt[data-head-mark=verified]', { timeout: WAIT_MS })
    expect(await seriousViolations(page)).toEqual([])
    await page.screenshot({ path: join(SCREENSHOTS, 'lineage.png'), fullPage: true })
    narrow.push(['lineage', new URL(page.url()).hash])
    // A head receipt altered in transit is not verified.
    const isCurrent = (url: URL) => url.pathname.startsWith('/registries/') && url.pathname.includes('/lineages/')
    await page.route(isCurrent, async (route) => {
      const answer = await route.fetch()
      const body = (await answer.json()) as { current: { lineage_head_receipt: { head_version: number } } }
      body.current.lineage_head_receipt.head_version = 7
      await route.fulfill({ response: answer, body: JSON.stringify(body) })
    })
    try {
      await page.reload()
      await page.waitForSelector('.head-receipt[data-head-mark=failed]', { timeout: WAIT_MS })
    } finally {
      await page.unroute(isCurrent)
    }
  })

  it('the observability page shows the probes, the registry and the metrics; settings show the connection and a snippet', async () => {
    await goto('#/observability')
    await page.waitForSelector('[data-probe=readyz][data-ok=true]', { timeout: WAIT_MS })
    expect(await page.getAttribute('[data-probe=healthz]', 'data-ok')).toBe('true')
    await page.waitForSelector('[data-registry=localhost][data-reach=reachable]', { timeout: WAIT_MS })
    // The page's figure is the one /metrics exposes (ingest only rises, so it is read after the page).
    const shown = Number((await page.textContent('[data-metric=acdp_events_ingested_total]'))!.replace(/,/g, ''))
    expect(shown).toBeGreaterThan(0)
    expect(await page.getAttribute('a[href="/metrics"]', 'href')).toBe('/metrics')
    expect(await seriousViolations(page)).toEqual([])
    await page.screenshot({ path: join(SCREENSHOTS, 'observability.png'), fullPage: true })
    narrow.push(['observability', '#/observability'])
    await goto('#/settings')
    await page.waitForSelector('[data-enrolled=localhost]', { timeout: WAIT_MS })
    expect(await page.textContent('[data-setting=control-plane]')).toBe(stack.controlPlaneUrl)
    expect(await page.textContent('[data-setting=tenant]')).toBe('default')
    expect(await page.getAttribute('pre[data-snippet]', 'data-snippet')).toBe(stack.registryUrl)
    expect(await page.textContent('pre[data-snippet]')).toContain(`registryUrl: ${JSON.stringify(stack.registryUrl)}`)
    // The API key is never on the page.
    expect(await page.textContent('body')).not.toContain(stack.secrets.control_plane_api_key)
    expect(await seriousViolations(page)).toEqual([])
    await page.screenshot({ path: join(SCREENSHOTS, 'settings.png'), fullPage: true })
    narrow.push(['settings', '#/settings'])
  })

  it('no exploration page scrolls sideways at 390 px, and none has a serious axe violation', async () => {
    await page.setViewportSize(NARROW_VIEWPORT)
    try {
      for (const [name, hash] of narrow) {
        await goto(hash)
        await waitForPageData(page)
        const overflow = await horizontalOverflow(page)
        expect(overflow.scrollWidth, `${hash}: ${overflow.wide.join(' | ')}`).toBeLessThanOrEqual(overflow.clientWidth)
        expect(await seriousViolations(page), hash).toEqual([])
        await page.screenshot({ path: join(SCREENSHOTS, `narrow-${name}.png`), fullPage: true })
      }
    } finally {
      await page.setViewportSize(DESKTOP_VIEWPORT)
    }
    expect(narrow.length).toBeGreaterThan(0)
    expect(pageErrors).toEqual([])
  })
})
