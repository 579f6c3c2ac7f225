/**
 * The Observability page's registry probes and the Security page's peers' revocation feeds in real headless
 * Chromium against the dev stack on loopback sockets. The control plane follows two peer feeds: one served by a
 * loopback server of this test (one revocation of its issuer, one of another issuer that is not applied) and one
 * on a port nothing listens on (its poll fails). Each page shows what the API answers; an operator key is told the
 * feeds need an admin key; no serious axe-core violation and no horizontal overflow at 390 px on either page;
 * screenshots into docs/console/.
 *
 * Skips with one printed line when /usr/bin/chromium is absent. Loopback only; every wait is bounded.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEV_REGISTRY_AUTHORITY, type RunningDevStack } from '../../cli/src/dev/dev-stack.js'
import { seriousViolations } from './support/accessibility.js'
import { hasChromium, launchChromium, warnWhenChromiumAbsent } from './support/chromium.js'
import { ensureConsoleBuild } from './support/console-build.js'
import { getJson, openConsolePage, SCREENSHOTS, signIn, WAIT_MS, waitForPageData } from './support/console-session.js'
import { type ConsoleStack, startConsoleStack } from './support/console-stack.js'
import { DESKTOP_VIEWPORT, horizontalOverflow } from './support/page-layout.js'

warnWhenChromiumAbsent('obs-security-browser')
const OPERATOR_KEY = 'operator-key-obs-security-0123456789'
const PEER_TOKEN = 'peer-feed-token-obs-security-0123456789'
const PEER = 'peer.obs.test'
const DEAD_PEER = 'dead-peer.obs.test'

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- API bodies are untyped JSON in tests
type Json = any

describe.skipIf(!hasChromium)('observability and security status in headless Chromium', () => {
  let running: ConsoleStack
  let stack: RunningDevStack
  let feedServer: Server
  let browser: Browser
  let page: Page
  let apiKey: string
  let base: string
  const pageErrors: string[] = []

  const api = (path: string, key = apiKey): Promise<Json> => getJson<Json>(base, key, path)
  const goto = async (target: Page, hash: string) => {
    await openConsolePage(target, base, hash)
    await waitForPageData(target, /^Loading/)
  }

  beforeAll(async () => {
    await ensureConsoleBuild()
    // A peer's revocation feed: one page, then done.
    const nowSeconds = Math.floor(Date.now() / 1000)
    feedServer = createServer((request, response) => {
      if (request.headers.authorization !== `Bearer ${PEER_TOKEN}`) {
        response.writeHead(401).end()
        return
      }
      const since = new URL(request.url ?? '/', 'http://x').searchParams.get('since')
      const entries =
        since === '0'
          ? [
              {
                jti: 'peer-jti-1',
                sub: 'did:web:peer-agent.test',
                iss: PEER,
                exp: nowSeconds + 3600,
                revoked_at_ms: 1000,
              },
              {
                jti: 'other-jti',
                sub: 'did:web:x.test',
                iss: 'other.test',
                exp: nowSeconds + 3600,
                revoked_at_ms: 1001,
              },
            ]
          : []
      response.writeHead(200, { 'content-type': 'application/json' })
      response.end(JSON.stringify({ entries, next_cursor: null }))
    })
    await new Promise<void>((resolve) => feedServer.listen(0, '127.0.0.1', resolve))
    const feedPort = (feedServer.address() as AddressInfo).port

    running = await startConsoleStack({
      name: 'obs-security-browser',
      controlPlaneEnv: {
        AUTH_API_KEYS: OPERATOR_KEY,
        REVOCATION_FEEDS: [
          `${PEER}|http://127.0.0.1:${feedPort}/auth/revocations|${PEER_TOKEN}|3600`,
          // Port 1: nothing listens, the poll fails with the outbound client's transport failure.
          `${DEAD_PEER}|http://127.0.0.1:1/auth/revocations|${PEER_TOKEN}|3600`,
        ].join(','),
      },
    })
    stack = running.stack
    base = stack.controlPlaneUrl
    apiKey = stack.secrets.control_plane_api_key
    // Both feeds are polled once at start: wait (bounded) until both polls have ended.
    const deadline = Date.now() + WAIT_MS
    const polled = async () =>
      (await api('/auth/revocation-feeds')).data.filter((f: Json) => f.lastPoll !== null).length
    while ((await polled()) < 2) {
      if (Date.now() > deadline) throw new Error('the peer feeds were not polled in time')
      await new Promise((resolve) => setTimeout(resolve, 50))
    }

    browser = await launchChromium()
    const context = await browser.newContext({ viewport: DESKTOP_VIEWPORT })
    page = await context.newPage()
    page.on('pageerror', (error) => pageErrors.push(error.message))
    await signIn(page, base, apiKey)
  }, 120_000)

  afterAll(async () => {
    await browser?.close()
    await running?.close()
    await new Promise<void>((resolve) => (feedServer ? feedServer.close(() => resolve()) : resolve()))
  })

  it("the observability page shows the dev registry's health and readiness as the API answers them", async () => {
    const health = await api(`/registries/${DEV_REGISTRY_AUTHORITY}/health`)
    // The dev registry: storage answers on /healthz; it serves no /readyz.
    expect(health.health).toMatchObject({ status: 'ok', httpStatus: 200 })
    expect(health.readiness).toMatchObject({ status: 'not_served', httpStatus: 404 })

    await goto(page, '#/observability')
    const probes = page.locator(`[data-registry-probes="${DEV_REGISTRY_AUTHORITY}"]`)
    await probes.waitFor({ timeout: WAIT_MS })
    for (const name of ['health', 'readiness'] as const) {
      const cell = probes.locator(`[data-registry-probe=${name}]`)
      expect(await cell.getAttribute('data-status')).toBe(health[name].status)
      expect(await cell.textContent()).toContain(`(HTTP ${health[name].httpStatus})`)
    }
    const healthText = await probes.locator('[data-registry-probe=health]').textContent()
    expect(healthText).toMatch(/^ok \(HTTP 200\)/)
    expect(healthText).toContain(`storage: ${String(health.health.body.storage)}`)
    expect(await probes.locator('[data-registry-probe=readiness]').textContent()).toBe(
      'not served by this registry (HTTP 404)',
    )
    expect(await seriousViolations(page)).toEqual([])
    await page.screenshot({ path: join(SCREENSHOTS, 'observability.png'), fullPage: true })
  })

  it("the security page shows the peers' revocation feeds as the API answers them", async () => {
    const feeds = await api('/auth/revocation-feeds')
    const byIssuer = Object.fromEntries(feeds.data.map((f: Json) => [f.issuer, f]))
    // What the stack did: the live peer's own revocation applied (the other issuer's dropped), the dead one failed.
    expect(byIssuer[PEER]).toMatchObject({ cursorMs: 1001, lastPoll: { outcome: 'ok' }, applied: { count: 1 } })
    expect(byIssuer[DEAD_PEER]).toMatchObject({ cursorMs: null, lastPoll: { outcome: 'error' }, applied: { count: 0 } })

    await goto(page, '#/security')
    const sections = page.locator('[data-peer-feed]')
    expect(await sections.evaluateAll((all) => all.map((s) => s.getAttribute('data-peer-feed')))).toEqual(
      feeds.data.map((f: Json) => f.issuer),
    )
    for (const feed of feeds.data) {
      const section = page.locator(`[data-peer-feed="${feed.issuer}"]`)
      expect(await section.locator('[data-peer-feed-outcome]').getAttribute('data-peer-feed-outcome')).toBe(
        feed.lastPoll.outcome,
      )
      expect(Number(await section.locator('[data-peer-feed-applied]').getAttribute('data-peer-feed-applied'))).toBe(
        feed.applied.count,
      )
      expect(await section.locator('[data-peer-feed-cursor]').getAttribute('data-peer-feed-cursor')).toBe(
        feed.cursorMs === null ? '' : String(feed.cursorMs),
      )
      expect(await section.textContent()).toContain(feed.feedUrl)
      if (feed.lastPoll.outcome === 'error') {
        expect(await section.textContent()).toContain(`failed: ${feed.lastPoll.errorCategory}`)
      }
      const rows = section.locator('[data-testid=peer-feed-revocations] tbody tr')
      expect(await rows.count()).toBe(feed.applied.newest.length)
      for (const [i, entry] of feed.applied.newest.entries()) {
        expect(await rows.nth(i).locator('td').first().textContent()).toBe(entry.jtiSha256)
      }
    }
    // Neither the feed's credential nor a clear token id reaches the section (our own feed, above it, lists the
    // applied entry in clear for our peers, as GET /auth/revocations serves it).
    const text = await page.locator('[aria-labelledby="peers-revocation-feeds-heading"]').textContent()
    expect(text).not.toContain(PEER_TOKEN)
    expect(text).not.toContain('peer-jti-1')
    expect(await seriousViolations(page)).toEqual([])
    await page.screenshot({ path: join(SCREENSHOTS, 'security.png'), fullPage: true })
  })

  it("an operator key is told the peers' feeds need an admin key, and the API refuses it the same", async () => {
    const refused = await fetch(`${base}/auth/revocation-feeds`, {
      headers: { authorization: `Bearer ${OPERATOR_KEY}` },
    })
    expect(refused.status).toBe(403)
    const operator = await browser.newPage()
    try {
      await operator.goto(`${base}/console/#/security`)
      await operator.fill('#api-key', OPERATOR_KEY)
      await operator.keyboard.press('Enter')
      await operator.waitForSelector('[data-caller=role]', { timeout: WAIT_MS })
      await operator
        .getByText("The peers' revocation feeds need an admin key; this key is not one.")
        .waitFor({ timeout: WAIT_MS })
      expect(await operator.locator('[data-peer-feed]').count()).toBe(0)
      expect(await seriousViolations(operator)).toEqual([])
    } finally {
      await operator.close()
    }
  })

  it('no horizontal overflow at 390 px on either page, and no page error', async () => {
    await page.setViewportSize({ width: 390, height: 844 })
    try {
      for (const [name, hash] of [
        ['observability', '#/observability'],
        ['security', '#/security'],
      ] as const) {
        await goto(page, hash)
        const overflow = await horizontalOverflow(page)
        expect(overflow.scrollWidth, `${hash}: ${overflow.wide.join(' | ')}`).toBeLessThanOrEqual(overflow.clientWidth)
        expect(await seriousViolations(page)).toEqual([])
        await page.screenshot({ path: join(SCREENSHOTS, `narrow-${name}.png`), fullPage: true })
      }
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 })
    }
    expect(pageErrors).toEqual([])
  })
})
