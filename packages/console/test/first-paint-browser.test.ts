/**
 * First paint of every console page with 100,000 stored events, in real headless Chromium against the dev stack on
 * loopback sockets. For each page, a full load from about:blank, then navigation start → first contentful paint
 * (the browser's `first-contentful-paint` entry: usually the header) and → the page's main content visible (the
 * frame after the DOM change that made the page's content selector match, recorded in the page by an init script),
 * printed as a table. The timings are reported, never asserted (they depend on the machine and its load); what is
 * asserted is that every page rendered its content, read from the 100,000 events where the page lists them.
 *
 * Runs with the other browser suites: the whole file took 36 s on the 2-core development machine at load 13, under
 * the minute that would call for a gate. `npm run bench:console-first-paint` runs it alone on a fresh build, for
 * figures worth writing down. Skips with one printed line when /usr/bin/chromium is absent.
 */
import { createProducer, createProducerKey, type Producer, type ProducerKey } from '@acdp/protocol'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunningDevStack } from '../../cli/src/dev/dev-stack.js'
import { hasChromium, launchChromium, warnWhenChromiumAbsent } from './support/chromium.js'
import { ensureConsoleBuild } from './support/console-build.js'
import { getJson, signIn, WAIT_MS } from './support/console-session.js'
import { type ConsoleStack, startConsoleStack } from './support/console-stack.js'
import { postLifecycleEvent } from './support/lifecycle-events.js'
import { DESKTOP_VIEWPORT } from './support/page-layout.js'
import { STORED_EVENTS_AUTHORITY, storePublishEvents } from './support/stored-events.js'

const STORED_EVENTS = 100_000
warnWhenChromiumAbsent('first-paint-browser')
/** A page's content can take a while behind 100,000 rows on a loaded machine; still bounded. */
const CONTENT_WAIT_MS = 60_000

/** One console page: its hash route and the selector that matches once its main content (its data) is drawn. */
interface MeasuredPage {
  name: string
  hash: string
  content: string
}

/**
 * Records, in the page, when the content selector first matches: checked after every DOM change from the first
 * one on, timed at the animation frame that follows (the frame that paints it), so the time is that of the page,
 * not of when the test got round to asking. An init script
 * (evaluated by DevTools, outside the console's CSP) reads the selector from the URL's `first-paint-content`
 * fragment parameter, which the console's router ignores.
 */
const CONTENT_PROBE = `(() => {
  const selector = new URLSearchParams(location.hash.split('?')[1] || '').get('first-paint-content')
  if (!selector) return
  const check = () => {
    if (!document.querySelector(selector)) return
    observer.disconnect()
    // The animation frame after the change is the one that paints it.
    requestAnimationFrame(() => (window.__contentAt = performance.now()))
  }
  const observer = new MutationObserver(check)
  observer.observe(document, { childList: true, subtree: true, attributes: true, characterData: true })
})()`

describe.skipIf(!hasChromium)(`console first paint with ${STORED_EVENTS} stored events`, () => {
  let running: ConsoleStack
  let stack: RunningDevStack
  let browser: Browser
  let page: Page
  let key: ProducerKey
  let producer: Producer
  let base: string
  let apiKey: string
  let seededMs = 0
  const word = `wombat${Date.now().toString(36)}`
  const runId = `first-paint-run-${Date.now().toString(36)}`
  const published: string[] = []
  let lineagePath = ''
  const pageErrors: string[] = []

  const api = <T>(path: string): Promise<T> => getJson<T>(base, apiKey, path)

  beforeAll(async () => {
    await ensureConsoleBuild()
    running = await startConsoleStack({
      name: 'first-paint',
      // The witness and the receipt audit on (the Trust and Registries pages show them), run by nobody: no timer
      // competes with the page loads being measured.
      controlPlaneEnv: {
        LOG_WITNESS_ENABLED: 'true',
        LOG_WITNESS_SCHEDULE: 'false',
        RECEIPT_AUDIT_ENABLED: 'true',
        RECEIPT_AUDIT_SCHEDULE: 'false',
        RECEIPT_AUDIT_SETTLE_MS: '0',
      },
    })
    stack = running.stack
    base = stack.controlPlaneUrl
    apiKey = stack.secrets.control_plane_api_key
    key = createProducerKey()
    producer = createProducer({ registryUrl: stack.registryUrl, key })

    // A real run of three contexts on the dev registry (the run, context and lineage pages verify what it serves):
    // the second derived from the first, the third superseding the second.
    const first = await producer.publish({ type: 'analysis', title: `${word} baseline` }, { runId })
    const second = await producer.publish(
      { type: 'analysis', title: 'derived reading', derived_from: [first.ctxId] },
      { runId },
    )
    const third = await producer.publish(
      { type: 'analysis', title: 'revised reading' },
      { runId, supersedes: second.ctxId },
    )
    published.push(first.ctxId, second.ctxId, third.ctxId)
    lineagePath = `#/lineages/${encodeURIComponent(String(second.response['lineage_id']))}?registry=localhost`
    // The webhooks arrive on their own (expect.poll is for tests only: a bounded loop here).
    const deadline = Date.now() + WAIT_MS
    while ((await api<{ data: unknown[] }>(`/events?runId=${encodeURIComponent(runId)}`)).data.length < 3) {
      if (Date.now() > deadline) throw new Error('the run’s publications did not all arrive')
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    // A retraction, so the lineage page has a lifecycle history beyond publication.
    await postLifecycleEvent(stack.registryUrl, key, third.ctxId, 'retract', 'measured page history')
    // One subscription (to retractions only: the stored events queue no delivery), one audit sweep and one witness
    // poll, so those pages show content rather than their empty states.
    const created = await fetch(`${base}/webhooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: 'http://127.0.0.1:9/first-paint', events: ['context_retracted'] }),
    })
    expect(created.status, await created.text()).toBeLessThan(300)
    await stack.controlPlane.app.receiptAudit.auditor!.sweepNow()
    await stack.controlPlane.app.witness.store.syncCursors(Date.now())
    await stack.controlPlane.app.witness.poller!.pollDue()

    seededMs = await storePublishEvents(stack.controlPlane.deps.store, STORED_EVENTS)

    browser = await launchChromium()
    page = await (await browser.newContext({ viewport: DESKTOP_VIEWPORT })).newPage()
    page.on('pageerror', (error) => pageErrors.push(error.message))
    await page.addInitScript(CONTENT_PROBE)
    await signIn(page, base, apiKey)
  }, 600_000)

  afterAll(async () => {
    await browser?.close()
    await running?.close()
  })

  /** Loads `target` from about:blank; the two times after navigation start, in ms, once its content is visible. */
  async function measure(target: MeasuredPage): Promise<{ fcp: number; content: number }> {
    const [path, query = ''] = target.hash.split('?', 2)
    const params = new URLSearchParams(query)
    params.set('first-paint-content', target.content)
    await page.goto('about:blank')
    await page.goto(`${base}/console/${path}?${params.toString()}`)
    await page.locator(target.content).first().waitFor({ state: 'visible', timeout: CONTENT_WAIT_MS })
    // The probe's frame may still be to come when the test sees the content.
    await expect
      .poll(() => page.evaluate('window.__contentAt'), { timeout: WAIT_MS, message: `${target.name}: content probe` })
      .toBeGreaterThan(0)
    const times = (await page.evaluate(
      `({ fcp: performance.getEntriesByName('first-contentful-paint')[0]?.startTime, content: window.__contentAt })`,
    )) as { fcp?: number; content?: number }
    expect(times.fcp, `${target.name}: first-contentful-paint`).toBeGreaterThan(0)
    return { fcp: times.fcp!, content: times.content! }
  }

  it('renders every page’s content and prints navigation start → first contentful paint → main content', async () => {
    const first = published[0]!
    const pages: MeasuredPage[] = [
      { name: 'dashboard', hash: '#/dashboard', content: '[data-kpi=contexts] .kpi-value' },
      { name: 'runs', hash: '#/runs', content: 'tr[data-run-id]' },
      { name: 'run detail', hash: `#/runs/${encodeURIComponent(runId)}`, content: 'svg.lineage[data-node-count="3"]' },
      { name: 'events', hash: '#/events', content: 'tr[data-event-id]' },
      { name: 'contexts search', hash: `#/contexts?q=${word}`, content: 'tr[data-match]' },
      {
        name: 'context',
        hash: `#/contexts/${encodeURIComponent(first)}`,
        content: `.inspector [data-subject=body][data-mark]`,
      },
      { name: 'lineage', hash: lineagePath, content: '.head-receipt[data-head-mark]' },
      { name: 'agents', hash: '#/agents', content: 'main table tbody tr' },
      { name: 'registries', hash: '#/registries', content: '[data-witness-head="localhost"]' },
      { name: 'trust', hash: '#/trust', content: '[data-trust-registry="localhost"]' },
      { name: 'security', hash: '#/security', content: '[data-caller=role]' },
      { name: 'observability', hash: '#/observability', content: '[data-probe=readyz][data-ok]' },
      { name: 'webhooks', hash: '#/webhooks', content: 'main table tbody tr' },
      { name: 'settings', hash: '#/settings', content: '[data-enrolled=localhost]' },
    ]
    const rows: Array<{ name: string; fcp: number; content: number }> = []
    for (const target of pages) {
      rows.push({ name: target.name, ...(await measure(target)) })
      // What each page drew is its data, read from the 100,000 stored events where the page lists them.
      switch (target.name) {
        case 'dashboard': {
          const contexts = Number((await page.textContent('[data-kpi=contexts] .kpi-value'))?.replace(/,/g, ''))
          expect(contexts).toBeGreaterThanOrEqual(STORED_EVENTS)
          break
        }
        case 'runs':
          expect(await page.locator('tr[data-run-id^="perf-run-"]').count()).toBeGreaterThan(0)
          break
        case 'run detail':
          expect(await page.locator('svg.lineage g.node').count()).toBe(3)
          break
        case 'events':
          expect(
            await page.locator(`tr[data-event-id] a[data-ctx-link*="${STORED_EVENTS_AUTHORITY}"]`).count(),
          ).toBeGreaterThan(0)
          break
        case 'contexts search':
          expect(await page.getAttribute(`tr[data-match="${first}"]`, 'data-match')).toBe(first)
          break
        case 'context':
          expect(await page.getAttribute('.inspector [data-subject=body]', 'data-mark')).toBe('verified')
          break
        case 'lineage':
          expect(await page.locator('.lineage-history li[data-kind=retracted]').count()).toBe(1)
          expect(await page.locator('tr[data-version]').count()).toBe(2)
          break
        case 'agents':
          expect(await page.textContent('main table tbody')).toContain('did:key:z6MkPerfAgent')
          break
        case 'registries':
          expect(await page.getAttribute('[data-witness-head="localhost"]', 'data-failures')).toBe('0')
          break
        case 'trust':
          expect(
            Number(await page.getAttribute('[data-trust-registry="localhost"] [data-figure="audited"]', 'data-value')),
          ).toBe(3)
          break
        case 'security':
          expect(await page.textContent('[data-caller=role]')).toBe('admin')
          break
        case 'observability':
          expect(await page.getAttribute('[data-probe=readyz]', 'data-ok')).toBe('true')
          break
        case 'webhooks':
          expect(await page.textContent('main table tbody')).toContain('http://127.0.0.1:9/first-paint')
          break
        case 'settings':
          expect(await page.textContent('[data-setting=tenant]')).toBe('default')
          break
      }
    }
    expect(rows).toHaveLength(14)
    expect(pageErrors).toEqual([])
    const table = [
      `[first-paint-browser] ${STORED_EVENTS} stored events (seeding through the store took ${seededMs} ms)`,
      '| page | first contentful paint (ms) | main content visible (ms) |',
      '| --- | ---: | ---: |',
      ...rows.map((r) => `| ${r.name} | ${r.fcp.toFixed(0)} | ${r.content.toFixed(0)} |`),
    ]
    console.log(table.join('\n'))
  }, 600_000)
})
