/**
 * The console in real headless Chromium (playwright-core driving the Debian `chromium`) against a real stack on
 * sockets: the dev stack's registry and control plane, wired by webhook, the console served by the control plane.
 * Covers sign-in, dashboard figures equal to the API's, live runs and lineage, the event feed resuming after the
 * stream is cut, enrollment through the form, in-browser verification (genuine and tampered contexts),
 * keyboard use and axe-core (no serious or critical violations) on every page, screenshots into docs/console/,
 * and the dashboard's first paint with 100,000 stored events (printed, not asserted).
 *
 * Skips with one printed line when /usr/bin/chromium is absent. Loopback only; every wait is bounded.
 */
import { join } from 'node:path'
import { createProducer, createProducerKey, type Producer } from '@acdp/protocol'
import type { Browser, BrowserContext, Page, Request } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunningDevStack } from '../../cli/src/dev/dev-stack.js'
import { seriousViolations, unlabelledControls } from './support/accessibility.js'
import { hasChromium, launchChromium, warnWhenChromiumAbsent } from './support/chromium.js'
import { ensureConsoleBuild } from './support/console-build.js'
import { getJson, openConsolePage, SCREENSHOTS, waitForPageData, WAIT_MS } from './support/console-session.js'
import { type ConsoleStack, startConsoleStack } from './support/console-stack.js'
import { DESKTOP_VIEWPORT, horizontalOverflow, NARROW_VIEWPORT, signOutOffsetFromBrand } from './support/page-layout.js'
import { storePublishEvents } from './support/stored-events.js'

/** An enrolled registry nobody serves (the witness section's alert). */
const OFFLINE_REGISTRY = 'offline-registry.test'
warnWhenChromiumAbsent('console-browser')
const PERF_EVENTS = 100_000

describe.skipIf(!hasChromium)('console in headless Chromium', () => {
  let running: ConsoleStack
  let stack: RunningDevStack
  let browser: Browser
  let context: BrowserContext
  let page: Page
  let apiKey: string
  let producer: Producer
  let base: string
  const runId = `console-run-${Date.now().toString(36)}`
  const published: string[] = []
  const streamRequests: Request[] = []
  const pageErrors: string[] = []

  const api = <T>(path: string): Promise<T> => getJson<T>(stack.controlPlaneUrl, apiKey, path)
  const publish = async (title: string, derivedFrom: string[] = []) => {
    const result = await producer.publish(
      { type: 'analysis', title, ...(derivedFrom.length > 0 ? { derived_from: derivedFrom } : {}) },
      { runId },
    )
    published.push(result.ctxId)
    return result.ctxId
  }
  const goto = (hash: string) => openConsolePage(page, base, hash)

  beforeAll(async () => {
    await ensureConsoleBuild()
    running = await startConsoleStack({
      name: 'console-browser',
      // The log witness on, polled by the test (never by a timer); one failed poll raises `unreachable`.
      controlPlaneEnv: {
        LOG_WITNESS_ENABLED: 'true',
        LOG_WITNESS_SCHEDULE: 'false',
        LOG_WITNESS_UNREACHABLE_THRESHOLD: '1',
        // The overview is compared with the API right after runs change: no reuse window (its staleness is tested
        // in the control plane's dashboard-cache tests).
        DASHBOARD_CACHE_MS: '0',
      },
    })
    stack = running.stack
    base = stack.controlPlaneUrl
    apiKey = stack.secrets.control_plane_api_key
    producer = createProducer({ registryUrl: stack.registryUrl, key: createProducerKey() })
    browser = await launchChromium()
    context = await browser.newContext({ viewport: DESKTOP_VIEWPORT })
    page = await context.newPage()
    // Record every Content-Security-Policy violation the console causes (registered before any page script).
    await page.addInitScript(
      `window.__cspViolations = []; document.addEventListener('securitypolicyviolation', (e) => window.__cspViolations.push(e.violatedDirective + ' ' + e.blockedURI))`,
    )
    page.on('pageerror', (error) => pageErrors.push(error.message))
    page.on('request', (request) => {
      if (request.url().includes('/events/stream')) streamRequests.push(request)
    })
  }, 120_000)

  afterAll(async () => {
    await browser?.close()
    await running?.close()
  })

  it('signs in with an API key, shows the tenant, and refuses a wrong key', async () => {
    await page.goto(`${base}/console/`)
    await page.waitForSelector('#api-key', { timeout: WAIT_MS })
    expect(await seriousViolations(page)).toEqual([])
    await page.fill('#api-key', 'not-a-key-0123456789')
    await page.click('button[type=submit]')
    await page.waitForSelector('[role=alert]', { timeout: WAIT_MS })
    expect(await page.textContent('[role=alert]')).toContain('not accepted')
    await page.screenshot({ path: join(SCREENSHOTS, 'sign-in.png') })

    await page.fill('#api-key', apiKey)
    await page.keyboard.press('Enter')
    await page.waitForSelector('[data-testid=tenant]', { timeout: WAIT_MS })
    expect(await page.textContent('[data-testid=tenant]')).toContain('default')
    // The key is kept for the tab only, never in a URL or persistent storage.
    expect(page.url()).not.toContain(apiKey)
    expect(await page.evaluate('localStorage.length')).toBe(0)
    // The strict CSP holds: nothing but eval (TypeBox's compiler probe, which falls back) is ever refused.
    const violations = (await page.evaluate('window.__cspViolations')) as string[]
    expect(violations.filter((v) => !v.endsWith(' eval'))).toEqual([])
  })

  it('a run published during the test appears in the runs table', async () => {
    await publish('first observation')
    await expect
      .poll(async () => (await api<{ total: number }>(`/runs?limit=1`)).total, { timeout: WAIT_MS })
      .toBeGreaterThan(0)
    await goto('#/runs')
    await page.waitForSelector(`tr[data-run-id="${runId}"]`, { timeout: WAIT_MS })
    expect(await page.textContent(`tr[data-run-id="${runId}"]`)).toContain(runId)
    expect(await seriousViolations(page)).toEqual([])
    expect(await unlabelledControls(page)).toBe(0)
    await page.screenshot({ path: join(SCREENSHOTS, 'runs.png') })
  })

  it('dashboard figures equal the API overview', async () => {
    await goto('#/dashboard')
    await page.waitForSelector('[data-kpi=runs]', { timeout: WAIT_MS })
    const overview = await api<Record<string, number>>('/dashboard/overview?window=24h')
    const kpis: Record<string, string> = {
      runs: 'totalRuns',
      contexts: 'totalContexts',
      live: 'totalContextsLive',
      retracted: 'totalRetracted',
      agents: 'totalAgents',
    }
    for (const [kpi, member] of Object.entries(kpis)) {
      const text = await page.textContent(`[data-kpi=${kpi}] .kpi-value`)
      expect(Number(text?.replace(/,/g, '')), kpi).toBe(overview[member])
    }
    expect(overview['totalContexts']).toBeGreaterThan(0)
    // didMethods[].method is served as written in DIDs ("did:key") and shown as served.
    const methods = (
      await api<{ didMethods: Array<{ method: string; publish_count: number }> }>('/dashboard/overview?window=24h')
    ).didMethods
    expect(methods.length).toBeGreaterThan(0)
    const label = await page.getAttribute('svg[aria-label^="Publications by producer DID method"]', 'aria-label')
    expect(label).toBe(
      `Publications by producer DID method: ${methods.map((m) => `${m.method} ${m.publish_count}`).join(', ')}`,
    )
    expect(label).toMatch(/: did:[a-z0-9]+ \d/)
    await page.waitForSelector('.feed-status[data-state=live]', { timeout: WAIT_MS })
    expect(await seriousViolations(page)).toEqual([])
    expect(await unlabelledControls(page)).toBe(0)
    await page.screenshot({ path: join(SCREENSHOTS, 'dashboard.png'), fullPage: true })
  })

  it('dashboard KPIs follow the live ticker, time axes carry dates, and an empty stack says how to run the demo', async () => {
    await goto('#/dashboard')
    await page.waitForSelector('.feed-status[data-state=live]', { timeout: WAIT_MS })
    const kpi = async () => Number((await page.textContent('[data-kpi=contexts] .kpi-value'))?.replace(/,/g, ''))
    const before = await kpi()
    await page.evaluate('window.__sameDocument = true')
    // In a run of its own: the run under test keeps the node counts the DAG tests expect.
    await producer.publish({ type: 'analysis', title: 'an event the ticker shows' }, { runId: `${runId}-ticker` })
    await expect.poll(kpi, { timeout: WAIT_MS }).toBe(before + 1)
    expect(await page.evaluate('window.__sameDocument')).toBe(true)
    // Both ends of the time axis carry a date (the 24 h window crosses midnight).
    const month = new Date().toLocaleString('en-US', { month: 'short' })
    const labels = await page.locator('svg[aria-label^="Events per interval"] text.chart-label').allTextContents()
    expect(labels).toHaveLength(2)
    for (const label of labels) expect(label).toMatch(/\b\d{1,2}\b/)
    expect(labels.join(' ')).toContain(month)

    // A stack with nothing in it (the control plane's answers stood in for by empty ones).
    const overview = await api<Record<string, unknown>>('/dashboard/overview?window=24h')
    const empty = {
      ...overview,
      totalRuns: 0,
      totalContexts: 0,
      totalContextsLive: 0,
      totalRetracted: 0,
      recentRuns: [],
    }
    await page.route('**/dashboard/overview?*', (route) =>
      route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(empty) }),
    )
    await page.route('**/runs?*', (route) =>
      route.fulfill({
        status: 200,
        contentType: 'application/json',
        body: JSON.stringify({ data: [], total: 0, limit: 1, offset: 0 }),
      }),
    )
    try {
      await goto('#/dashboard')
      const firstRun = page.locator('[data-empty-state=first-run]')
      await firstRun.waitFor({ timeout: WAIT_MS })
      expect(await firstRun.textContent()).toContain('npm start')
      expect(await seriousViolations(page)).toEqual([])
      await page.screenshot({ path: join(SCREENSHOTS, 'dashboard-first-run.png') })
    } finally {
      await page.unroute('**/dashboard/overview?*')
      await page.unroute('**/runs?*')
    }
  })

  it('the run DAG gains a node live, without a reload', async () => {
    await goto(`#/runs/${encodeURIComponent(runId)}`)
    await page.waitForSelector('svg.lineage[data-node-count="1"]', { timeout: WAIT_MS })
    await page.waitForSelector('.feed-status[data-state=live]', { timeout: WAIT_MS })
    await page.evaluate('window.__sameDocument = true')
    await publish('derived analysis', [published[0]!])
    await page.waitForSelector('svg.lineage[data-node-count="2"]', { timeout: WAIT_MS })
    expect(await page.evaluate('window.__sameDocument')).toBe(true)
    expect(await page.locator('svg.lineage path.edge').count()).toBe(1)
  })

  it('the run feed resumes after the stream is cut, with Last-Event-ID, missing nothing and repeating nothing', async () => {
    const feed = page.locator('.feed-status[data-state=live]').last()
    await feed.waitFor({ timeout: WAIT_MS })
    const runStreams = () => streamRequests.filter((r) => r.url().includes(`/runs/`))
    const before = runStreams().length
    // Cut every open connection of the control plane (the streams included), then publish while the console waits
    // to reconnect: the new event must arrive through the resumed stream's replay or live, exactly once.
    stack.controlPlane.app.server.closeAllConnections()
    const third = await publish('published while the stream was down', [published[1]!])
    await page.waitForSelector(`.feed-status[data-reconnects="1"]`, { timeout: WAIT_MS })
    await page.waitForSelector('svg.lineage[data-node-count="3"]', { timeout: WAIT_MS })
    const resumed = runStreams().slice(before)
    expect(resumed.length).toBeGreaterThan(0)
    expect(resumed.some((r) => /^\d+$/.test(r.headers()['last-event-id'] ?? ''))).toBe(true)
    const feedItems = page.locator('section[aria-labelledby=live-run-events-heading] li')
    await expect.poll(async () => feedItems.filter({ hasText: third }).count(), { timeout: WAIT_MS }).toBe(1)
    const ids = await feedItems.evaluateAll((items) => items.map((item) => item.getAttribute('data-event-id')))
    expect(new Set(ids).size).toBe(ids.length)
  })

  it('the inspector verifies a genuine context, its receipt and log inclusion in the browser, and marks tampered ones not verified', async () => {
    const ctxId = published[0]!
    const row = (subject: string) => `.inspector [data-subject=${subject}]`
    /** Asserts a row's mark, with the row's text (the check's detail) as the failure message. */
    const expectMark = async (subject: string, mark: string) =>
      expect(await page.getAttribute(row(subject), 'data-mark'), (await page.textContent(row(subject))) ?? '').toBe(
        mark,
      )
    // The dev stack's witness (the control plane) cosigns the log; one poll by the test, then the registry
    // collects the cosignature on its own schedule (every 2 s).
    await stack.controlPlane.app.witness.store.syncCursors(Date.now())
    expect(await stack.controlPlane.app.witness.poller!.pollDue()).toBe(1)
    await expect
      .poll(
        async () => {
          const response = await fetch(`${stack.registryUrl}/log/checkpoint`)
          const body = (await response.json()) as { witness_signatures?: Array<{ witness_id: string }> }
          return body.witness_signatures?.[0]?.witness_id
        },
        { timeout: WAIT_MS },
      )
      .toBe(stack.witnessDid)
    const open = async () => {
      await page.locator(`g.node[data-ctx-id="${ctxId}"]`).focus()
      await page.keyboard.press('Enter')
      await page.waitForSelector('.inspector [data-subject=witness_signatures][data-mark]', { timeout: WAIT_MS })
    }
    // Genuine: through the control plane's federation proxy, receipt key and inclusion proof relayed from the
    // registry (which runs receipts and the transparency log here), every check recomputed in Chromium.
    const proxied = await fetch(`${base}/contexts/${encodeURIComponent(ctxId)}`, {
      headers: { authorization: `Bearer ${apiKey}` },
    })
    expect(proxied.status).toBe(200)
    const genuine = await proxied.text()
    expect(JSON.parse(genuine)).toHaveProperty('registry_receipt')
    await open()
    await expectMark('body', 'verified')
    await expectMark('signature', 'verified')
    await expectMark('registry_receipt', 'verified')
    await expectMark('log_inclusion', 'verified')
    expect(await page.textContent('.inspector [data-subject=log_inclusion]')).toContain('did:web:localhost/log/')
    // The dev witness is a did:key: its cosignature is checked in the browser too.
    await expectMark('witness_signatures', 'verified')
    expect(await page.textContent('.inspector [data-subject=witness_signatures]')).toContain(stack.witnessDid)
    expect(await seriousViolations(page)).toEqual([])
    expect(await unlabelledControls(page)).toBe(0)
    await page.screenshot({ path: join(SCREENSHOTS, 'run-detail.png'), fullPage: true })

    // Tampered answers stand in for a lying registry or proxy (the relay itself is left untouched).
    let serve = genuine
    await page.route('**/contexts/**', (route) =>
      route.fulfill({ status: 200, contentType: 'application/acdp+json', body: serve }),
    )
    const tamperedBody = JSON.parse(genuine) as { body: Record<string, unknown> }
    tamperedBody.body['title'] = 'quietly rewritten'
    serve = JSON.stringify(tamperedBody)
    await page.click('text=Close inspector')
    await open()
    await expectMark('body', 'failed')
    await expectMark('signature', 'not_checked')
    await expectMark('registry_receipt', 'not_checked')
    await expectMark('log_inclusion', 'not_checked')
    expect(await page.textContent('.inspector [data-subject=body]')).toContain('hash_mismatch')
    await page.screenshot({ path: join(SCREENSHOTS, 'inspector-tampered.png'), fullPage: true })

    // A receipt altered after signing: the body still verifies, the receipt and what rests on it do not.
    const tamperedReceipt = JSON.parse(genuine) as { registry_receipt: Record<string, unknown> }
    tamperedReceipt.registry_receipt['created_at'] = '2020-01-01T00:00:00.000Z'
    serve = JSON.stringify(tamperedReceipt)
    await page.click('text=Close inspector')
    await open()
    await expectMark('body', 'verified')
    await expectMark('signature', 'verified')
    await expectMark('registry_receipt', 'failed')
    await expectMark('log_inclusion', 'not_checked')
    await page.click('text=Close inspector')
    await page.unroute('**/contexts/**')
  })

  it('the DAG draws a supersession dashed; "verify this run" marks a tampered node failed and the others verified', async () => {
    // A second version of the third context, in the same run: the supersession edge the DAG must draw.
    const revised = await producer.publish(
      { type: 'analysis', title: 'revised while offline' },
      { runId, supersedes: published[2]! },
    )
    published.push(revised.ctxId)
    await expect
      .poll(async () => (await api<{ nodes: unknown[] }>(`/runs/${encodeURIComponent(runId)}/lineage`)).nodes.length, {
        timeout: WAIT_MS,
      })
      .toBe(4)
    await goto(`#/runs/${encodeURIComponent(runId)}`)
    await page.waitForSelector('svg.lineage[data-node-count="4"]', { timeout: WAIT_MS })
    const dashed = page.locator('svg.lineage path[data-edge-kind=supersedes]')
    await expect.poll(() => dashed.count(), { timeout: WAIT_MS }).toBe(1)
    const dash = (kind: string) =>
      page.evaluate(
        `getComputedStyle(document.querySelector('svg.lineage path[data-edge-kind=${kind}]')).strokeDasharray`,
      )
    expect(await dash('supersedes')).not.toBe('none')
    expect(await dash('derived')).toBe('none')
    // The superseded node says so, and carries type · version.
    expect(await page.textContent(`g.node[data-ctx-id="${published[2]!}"] title`)).toContain(
      'analysis · v1 (superseded)',
    )
    expect(await page.textContent(`g.node[data-ctx-id="${revised.ctxId}"] title`)).toContain('analysis · v2')
    // Zoom changes the window; Fit brings the whole drawing back.
    const viewBox = () => page.getAttribute('svg.lineage', 'viewBox')
    const fitted = await viewBox()
    await page.getByRole('button', { name: 'Zoom in' }).click()
    expect(await viewBox()).not.toBe(fitted)
    await page.getByRole('button', { name: 'Fit' }).click()
    expect(await viewBox()).toBe(fitted)
    // The keyboard twin: from a focused node, an arrow pans and Fit restores.
    await page.locator(`g.node[data-ctx-id="${revised.ctxId}"]`).focus()
    await page.keyboard.press('ArrowRight')
    expect(await viewBox()).not.toBe(fitted)
    await page.getByRole('button', { name: 'Fit' }).click()
    expect(await viewBox()).toBe(fitted)

    // One context tampered in transit (a lying registry or proxy); the others as served.
    const tampered = published[0]!
    const genuine = await api<{ body: Record<string, unknown> }>(`/contexts/${encodeURIComponent(tampered)}`)
    genuine.body['title'] = 'quietly rewritten'
    const isTampered = (url: URL) => decodeURIComponent(url.pathname) === `/contexts/${tampered}`
    await page.route(isTampered, (route) =>
      route.fulfill({ status: 200, contentType: 'application/acdp+json', body: JSON.stringify(genuine) }),
    )
    try {
      await page.getByRole('button', { name: 'Verify this run' }).click()
      const count = page.locator('.verify-count[data-done=true]')
      await count.waitFor({ timeout: WAIT_MS * 2 })
      expect(await count.getAttribute('data-failed')).toBe('1')
      expect(await count.getAttribute('data-verified')).toBe('3')
      expect(await count.textContent()).toBe('3 of 4 verified · 1 failed · 0 unavailable')
      const failed = page.locator(`g.node[data-ctx-id="${tampered}"]`)
      expect(await failed.getAttribute('data-verdict')).toBe('failed')
      expect(await failed.locator('text.node-verdict').textContent()).toBe('✗')
      expect(await failed.locator('title').textContent()).toContain('verification: failed')
      // The tampered title is never shown as if it were the context's.
      expect(await failed.textContent()).not.toContain('quietly rewritten')
      for (const ctxId of published.slice(1, 4)) {
        const node = page.locator(`g.node[data-ctx-id="${ctxId}"]`)
        expect(await node.getAttribute('data-verdict'), ctxId).toBe('verified')
        expect(await node.locator('text.node-verdict').textContent()).toBe('✓')
      }
      // No heading runs under its node's verdict mark; the superseded one still says so.
      for (const ctxId of published.slice(0, 4)) {
        const node = page.locator(`g.node[data-ctx-id="${ctxId}"]`)
        const heading = (await node.locator('text.node-title').boundingBox())!
        const mark = (await node.locator('text.node-verdict').boundingBox())!
        expect(heading.x + heading.width, ctxId).toBeLessThanOrEqual(mark.x)
      }
      expect(await page.textContent(`g.node[data-ctx-id="${published[2]!}"] text.node-title`)).toMatch(
        /… · v1 \(superseded\)$/,
      )
      // A verified node shows its title.
      expect(await page.locator(`g.node[data-ctx-id="${revised.ctxId}"] text.node-step`).textContent()).toContain(
        'revised while',
      )
      expect(await seriousViolations(page)).toEqual([])
      await page.screenshot({ path: join(SCREENSHOTS, 'run-verified.png'), fullPage: true })
      // The layout library and the verification run under the strict CSP (nothing but TypeBox's eval probe refused).
      const violations = (await page.evaluate('window.__cspViolations')) as string[]
      expect(violations.filter((v) => !v.endsWith(' eval'))).toEqual([])
    } finally {
      await page.unroute(isTampered)
    }
  })

  it('the header lookup opens a context page, refuses a non-acdp id, and every ctx_id links there', async () => {
    const ctxId = published[0]!
    await goto('#/dashboard')
    const lookup = page.getByLabel('Open a context by ctx_id')
    await lookup.fill(runId)
    await lookup.press('Enter')
    await page.waitForSelector('#ctx-lookup-problem', { timeout: WAIT_MS })
    expect(await page.textContent('#ctx-lookup-problem')).toContain('not a ctx_id')
    expect(await page.textContent('main h1')).toBe('Dashboard')
    await lookup.fill(ctxId)
    await lookup.press('Enter')
    await expect.poll(() => page.textContent('main h1'), { timeout: WAIT_MS }).toBe('Context')
    expect(decodeURIComponent(new URL(page.url()).hash)).toBe(`#/contexts/${ctxId}`)
    await page.waitForSelector(`.inspector[data-ctx-id="${ctxId}"] [data-subject=body][data-mark=verified]`, {
      timeout: WAIT_MS,
    })
    expect(await seriousViolations(page)).toEqual([])
    await page.screenshot({ path: join(SCREENSHOTS, 'context.png'), fullPage: true })
    // A route change resets the inspector: the second context's page shows the second context only.
    await page.evaluate(`location.hash = ${JSON.stringify(`#/contexts/${encodeURIComponent(published[1]!)}`)}`)
    await page.waitForSelector(`.inspector[data-ctx-id="${published[1]!}"] [data-subject=body][data-mark]`, {
      timeout: WAIT_MS,
    })
    expect(await page.locator('.inspector').count()).toBe(1)
    // The run's history links each context to its page.
    await goto(`#/runs/${encodeURIComponent(runId)}`)
    const link = page.locator(`section[aria-labelledby=run-history-heading] a[data-ctx-link="${ctxId}"]`).first()
    await link.waitFor({ timeout: WAIT_MS })
    await link.click()
    await expect.poll(() => page.textContent('main h1'), { timeout: WAIT_MS }).toBe('Context')
    await page.waitForSelector(`.inspector[data-ctx-id="${ctxId}"]`, { timeout: WAIT_MS })
  })

  it('an enrollment made in the form appears in the API, and its secret and read credential are never shown', async () => {
    await goto('#/registries')
    const secret = 'enroll-secret-from-the-browser-0123'
    const readCredential = 'read-credential-from-the-browser-4567'
    await page.getByLabel('Authority (host or host:port)').fill('browser-enrolled.example')
    await page.getByLabel('Base URL').fill('https://browser-enrolled.example')
    await page.getByLabel('Webhook secret (at least 16 characters; write-only)').fill(secret)
    await page.getByLabel(/^Read credential/).fill(readCredential)
    // Disabled: nothing (profiles, witness) ever tries to reach this made-up host; the test stays on loopback.
    await page.getByLabel('Enabled').uncheck()
    await page.getByRole('button', { name: 'Enroll' }).click()
    await page.waitForSelector('tr[data-authority="browser-enrolled.example"]', { timeout: WAIT_MS })
    const enrollments = await api<{
      data: Array<{ authority: string; enabled: boolean; hasWebhookSecret: boolean; hasReadCredential: boolean }>
    }>('/registries/enrollments')
    expect(enrollments.data.find((e) => e.authority === 'browser-enrolled.example')).toMatchObject({
      enabled: false,
      hasWebhookSecret: true,
      hasReadCredential: true,
    })
    expect(await page.content()).not.toContain(secret)
    expect(await page.content()).not.toContain(readCredential)
    for (const input of await page.locator('input[type=password]').all()) expect(await input.inputValue()).toBe('')
    expect(
      await page.locator('tr[data-authority="browser-enrolled.example"] [data-read-credential]').textContent(),
    ).toBe('set (never shown)')
    // Advertised profiles, read through GET /registries/:authority/capabilities from the dev registry itself.
    const profiles = page.locator('tr[data-authority="localhost"] [data-profiles] li')
    await expect
      .poll(() => profiles.allTextContents(), { timeout: WAIT_MS })
      .toContain('acdp-registry-transparency-log')
    const advertised = await api<{ profiles: string[] }>('/registries/localhost/capabilities')
    expect(await profiles.allTextContents()).toEqual(advertised.profiles)
    expect(await seriousViolations(page)).toEqual([])
    expect(await unlabelledControls(page)).toBe(0)
    await page.screenshot({ path: join(SCREENSHOTS, 'registries.png'), fullPage: true })
  })

  it('the witness section shows the real witness state and alert, and acknowledges it', async () => {
    const poller = stack.controlPlane.app.witness.poller
    expect(poller).toBeDefined()
    // A second, enabled registry that cannot be reached (nothing listens on loopback port 9): its poll fails, which
    // at threshold 1 is the `unreachable` alert the page shows and acknowledges.
    const enrolled = await fetch(`${base}/registries/enroll`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ authority: OFFLINE_REGISTRY, baseUrl: 'http://127.0.0.1:9', enabled: true }),
    })
    expect(enrolled.status).toBe(200)
    // One poll of both by the real witness; whatever it concluded is what the page must show.
    await stack.controlPlane.app.witness.store.syncCursors(Date.now())
    expect(await poller!.pollDue()).toBe(2)
    const state = await api<{ treeSize: number | null; consecutiveFailures: number; alert: { reason: string } | null }>(
      '/registries/localhost/log-witness',
    )
    const offline = await api<{ consecutiveFailures: number; alert: { reason: string } | null }>(
      `/registries/${OFFLINE_REGISTRY}/log-witness`,
    )
    const alerts = await api<{ data: Array<{ authority: string; reason: string; acknowledgedAt: string | null }> }>(
      '/registries/log-witness/alerts',
    )
    await goto('#/registries')
    const head = page.locator('[data-witness-head="localhost"]')
    await head.waitFor({ timeout: WAIT_MS })
    expect(await head.getAttribute('data-tree-size')).toBe(String(state.treeSize ?? ''))
    expect(await head.getAttribute('data-failures')).toBe(String(state.consecutiveFailures))
    // The dev registry (plain HTTP, did:web:localhost) is witnessed: its DID document is read through the enrolled
    // base URL, the checkpoint verifies, the head is its log's.
    expect(state).toMatchObject({ consecutiveFailures: 0, alert: null })
    expect(state.treeSize).toBeGreaterThan(0)
    expect(offline).toMatchObject({ consecutiveFailures: 1, alert: { reason: 'unreachable' } })
    expect(alerts.data.find((alert) => alert.authority === 'localhost')).toBeUndefined()
    const active = alerts.data.find((alert) => alert.authority === OFFLINE_REGISTRY)
    expect(active).toMatchObject({ reason: 'unreachable', acknowledgedAt: null })
    const alertRow = page.locator(`[data-witness-alert="${OFFLINE_REGISTRY}"]`)
    expect(await alertRow.getAttribute('data-state')).toBe('active')
    expect(await alertRow.textContent()).toContain('unreachable')
    await alertRow.getByRole('button', { name: /Acknowledge/ }).click()
    await expect.poll(() => alertRow.getAttribute('data-state'), { timeout: WAIT_MS }).toBe('acknowledged')
    const after = await api<{
      data: Array<{ authority: string; acknowledgedAt: string | null; acknowledgedBy: string }>
    }>('/registries/log-witness/alerts?includeAcknowledged=true')
    expect(after.data.find((alert) => alert.authority === OFFLINE_REGISTRY)?.acknowledgedAt).not.toBeNull()
    expect(
      await page
        .getByRole('status')
        .filter({ hasText: `Acknowledged the alert for ${OFFLINE_REGISTRY}` })
        .count(),
    ).toBe(1)
    expect(await seriousViolations(page)).toEqual([])
    await page.screenshot({ path: join(SCREENSHOTS, 'registries-witness.png'), fullPage: true })
  })

  it('a webhook subscription created in the form appears in the API; its deliveries can be redelivered', async () => {
    await goto('#/webhooks')
    const secret = 'webhook-signing-secret-0123456789'
    // Port 9 (discard) on loopback: deliveries fail and stay listed, which is what redelivery is for.
    await page.getByLabel('Destination URL').fill('http://127.0.0.1:9/acdp-hook')
    await page.getByLabel('Event types (comma-separated; empty = all)').fill('context_published')
    await page.getByLabel('Signing secret (write-only)').fill(secret)
    await page.getByRole('button', { name: 'Create subscription' }).click()
    await page.waitForSelector('text=Subscription created.', { timeout: WAIT_MS })
    const listed = await api<Array<{ id: string; url: string; events: string[] }>>('/webhooks')
    const subscription = listed.find((s) => s.url === 'http://127.0.0.1:9/acdp-hook')
    expect(subscription).toMatchObject({ events: ['context_published'] })
    expect(await page.content()).not.toContain(secret)

    await publish('an event for the subscription')
    await expect
      .poll(async () => (await api<{ total: number }>(`/webhooks/${subscription!.id}/deliveries`)).total, {
        timeout: WAIT_MS,
      })
      .toBeGreaterThan(0)
    await page.getByRole('button', { name: /^Deliveries/ }).click()
    await page
      .getByRole('button', { name: /^Redeliver/ })
      .first()
      .click()
    await page.waitForSelector('text=queued again', { timeout: WAIT_MS })
  })

  it.each([
    { hash: '#/events', name: 'events', heading: 'Events' },
    { hash: '#/agents', name: 'agents', heading: 'Agents' },
    { hash: '#/webhooks', name: 'webhooks', heading: 'Webhooks' },
  ])('$name page: loads, passes axe, labelled controls, screenshot', async ({ hash, name, heading }) => {
    await goto(hash)
    expect(await page.textContent('main h1')).toBe(heading)
    await page.waitForSelector('main [role=status], main table, main .muted', { timeout: WAIT_MS })
    expect(await seriousViolations(page)).toEqual([])
    expect(await unlabelledControls(page)).toBe(0)
    await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true })
  })

  it('the events page filters by a picked event type and shows each row payload as stored', async () => {
    // A search on the registry reports a read (search_executed): hidden from the list unless asked for.
    expect((await fetch(`${stack.registryUrl}/contexts/search?q=analysis`)).status).toBe(200)
    await expect
      .poll(async () => (await api<{ data: unknown[] }>('/events?eventType=search_executed')).data.length, {
        timeout: WAIT_MS,
      })
      .toBeGreaterThan(0)
    await goto('#/events')
    const listed = page.locator('tr[data-event-id]')
    await listed.first().waitFor({ timeout: WAIT_MS })
    const listedTypes = () => listed.evaluateAll((all) => all.map((r) => r.getAttribute('data-event-type')))
    expect(await listedTypes()).not.toContain('search_executed')
    expect(await listedTypes()).toContain('context_published')
    await page.getByLabel('Include search reads (search_executed)').check()
    await page.getByRole('button', { name: 'Apply filters' }).click()
    await expect.poll(listedTypes, { timeout: WAIT_MS }).toContain('search_executed')
    await goto('#/events')
    const picker = page.getByLabel('Event type')
    // A picker of the protocol's webhook event types, not free text.
    expect(await picker.evaluate((el) => el.tagName)).toBe('SELECT')
    expect(await picker.locator('option').allTextContents()).toEqual([
      'Any type',
      'context_published',
      'context_retrieved',
      'search_executed',
      'context_retracted',
      'context_republished',
    ])
    await picker.selectOption('context_published')
    await page.getByRole('button', { name: 'Apply filters' }).click()
    await expect.poll(() => new URL(page.url()).hash, { timeout: WAIT_MS }).toContain('eventType=context_published')
    const expected = await api<{ data: Array<{ id: string; eventType: string; rawPayload: unknown }> }>(
      '/events?eventType=context_published&limit=50',
    )
    expect(expected.data.length).toBeGreaterThan(0)
    const rows = page.locator('tr[data-event-id]')
    await expect.poll(() => rows.count(), { timeout: WAIT_MS }).toBe(expected.data.length)
    expect(new Set(await rows.evaluateAll((all) => all.map((r) => r.getAttribute('data-event-type'))))).toEqual(
      new Set(['context_published']),
    )
    // Each context is a link to its page.
    expect(await page.locator('tr[data-event-id] a[data-ctx-link]').count()).toBe(expected.data.length)
    const first = expected.data[0]!
    const row = page.locator(`tr[data-event-id="${first.id}"]`)
    await row.getByRole('button', { name: /payload/ }).click()
    const payload = page.locator(`#payload-${first.id}`)
    await payload.waitFor({ timeout: WAIT_MS })
    expect(JSON.parse((await payload.textContent()) ?? '')).toEqual(first.rawPayload)
    expect(await seriousViolations(page)).toEqual([])
    expect(await unlabelledControls(page)).toBe(0)
    await page.screenshot({ path: join(SCREENSHOTS, 'events-payload.png'), fullPage: true })
  })

  it('is usable from the keyboard: skip link, navigation, and Tab order into the page', async () => {
    await goto('#/dashboard')
    await page.evaluate('document.activeElement && document.activeElement.blur()')
    await page.keyboard.press('Tab')
    expect(await page.evaluate('document.activeElement.textContent')).toBe('Skip to content')
    // The skip link moves focus to the page without touching the route (the hash is the router's).
    await page.keyboard.press('Enter')
    expect(await page.evaluate('document.activeElement.id')).toBe('main')
    expect(new URL(page.url()).hash).toBe('#/dashboard')
    expect(await page.textContent('main h1')).toBe('Dashboard')
    await goto('#/dashboard')
    await page.evaluate('document.activeElement && document.activeElement.blur()')
    await page.keyboard.press('Tab')
    const visited: string[] = []
    for (let i = 0; i < 14; i++) {
      await page.keyboard.press('Tab')
      visited.push(
        String(
          await page.evaluate(
            'document.activeElement.getAttribute("aria-label") || document.activeElement.textContent',
          ),
        ),
      )
    }
    expect(visited.slice(0, 11)).toEqual([
      'Dashboard',
      'Runs',
      'Events',
      'Registries',
      'Agents',
      'Webhooks',
      'Trust',
      'Security',
      'Contexts',
      'Observability',
      'Settings',
    ])
    // Then the header's lookup box and its button, then Sign out.
    expect(visited.slice(11)).toEqual(['', 'Open', 'Sign out'])
    // Follow the Runs link with the keyboard alone.
    for (let i = 0; i < 12; i++) await page.keyboard.press('Shift+Tab')
    expect(await page.evaluate('document.activeElement.textContent')).toBe('Runs')
    await page.keyboard.press('Enter')
    // Polled from the test side: in-page polling of a string would need eval, which the console's CSP refuses.
    await expect.poll(async () => page.textContent('main h1'), { timeout: WAIT_MS }).toBe('Runs')
    expect(pageErrors).toEqual([])
  })

  it('no page scrolls sideways at 390 px, and the header keeps Sign out on its line at 1280 px', async () => {
    // The header at desktop width: the lookup box shrinks rather than wrapping "Sign out" onto a second line.
    await goto('#/dashboard')
    expect(await signOutOffsetFromBrand(page)).toBeLessThan(8)
    await page.setViewportSize(NARROW_VIEWPORT)
    try {
      const pages = [
        ['dashboard', '#/dashboard'],
        ['runs', '#/runs'],
        ['run-detail', `#/runs/${encodeURIComponent(runId)}`],
        ['events', '#/events'],
        ['registries', '#/registries'],
        ['agents', '#/agents'],
        ['webhooks', '#/webhooks'],
        ['context', `#/contexts/${encodeURIComponent(published[0]!)}`],
      ] as const
      for (const [name, hash] of pages) {
        await goto(hash)
        // Wait until the page has its data (no loading line left), so what is measured is the full page.
        await waitForPageData(page)
        const overflow = await horizontalOverflow(page)
        expect(overflow.scrollWidth, `${hash}: ${overflow.wide.join(' | ')}`).toBeLessThanOrEqual(overflow.clientWidth)
        await page.screenshot({ path: join(SCREENSHOTS, `narrow-${name}.png`), fullPage: true })
      }
    } finally {
      await page.setViewportSize(DESKTOP_VIEWPORT)
    }
  })

  it(`dashboard first paint with ${PERF_EVENTS.toLocaleString('en-US')} stored events (measured, not asserted)`, async () => {
    const seededMs = await storePublishEvents(stack.controlPlane.deps.store, PERF_EVENTS)
    await page.goto('about:blank')
    await page.goto(`${base}/console/#/dashboard`)
    await page.waitForSelector('[data-kpi=contexts]', { timeout: 60_000 })
    await expect
      .poll(async () => page.evaluate(`performance.getEntriesByName('acdp-dashboard-painted').length`), {
        timeout: 60_000,
      })
      .toBeGreaterThan(0)
    const paintMs = Number(await page.evaluate(`performance.getEntriesByName('acdp-dashboard-painted')[0].startTime`))
    const contexts = Number((await page.textContent('[data-kpi=contexts] .kpi-value'))?.replace(/,/g, ''))
    expect(contexts).toBeGreaterThanOrEqual(PERF_EVENTS)
    console.log(
      `[console-browser] dashboard first paint with ${PERF_EVENTS} stored events: ${paintMs.toFixed(0)} ms after navigation start (seeding took ${seededMs} ms)`,
    )
  }, 600_000)
})
