/**
 * The context inspector in headless Chromium against the dev stack (both services on loopback sockets): a lineage
 * of two versions with the first retracted. The retracted version's page carries the retraction banner with its
 * reason, the registry state (status, version, lineage link), and a next-version link to v2; v2's page links back
 * to v1. The lineage head receipt and key revocation rows carry a state and a reason, the DataRefs their hash
 * verdicts (embedded content verified, a location off the console's origin not available), and the body JSON
 * copies to the clipboard. No serious axe-core violation, no sideways scroll at 390 px. Screenshots go to
 * docs/console/ (context-retracted.png, narrow-context-retracted.png).
 */
import { createHash } from 'node:crypto'
import { join } from 'node:path'
import { createProducer, createProducerKey, type Producer, type ProducerKey } from '@acdp/protocol'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunningDevStack } from '../../cli/src/dev/dev-stack.js'
import { seriousViolations } from './support/accessibility.js'
import { hasChromium, launchChromium, warnWhenChromiumAbsent } from './support/chromium.js'
import { ensureConsoleBuild } from './support/console-build.js'
import { openConsolePage, SCREENSHOTS, signIn, WAIT_MS } from './support/console-session.js'
import { type ConsoleStack, startConsoleStack } from './support/console-stack.js'
import { postLifecycleEvent } from './support/lifecycle-events.js'
import { DESKTOP_VIEWPORT, horizontalOverflow } from './support/page-layout.js'

warnWhenChromiumAbsent('inspector-browser')
const sha256 = (text: string) => `sha256:${createHash('sha256').update(text).digest('hex')}`
const REASON = 'the input series was wrong'

describe.skipIf(!hasChromium)('context inspector in headless Chromium', () => {
  let running: ConsoleStack
  let stack: RunningDevStack
  let browser: Browser
  let page: Page
  let key: ProducerKey
  let producer: Producer
  let v1: string
  let v2: string
  let lineageId: string
  const pageErrors: string[] = []

  const goto = (hash: string) => openConsolePage(page, stack.controlPlaneUrl, hash)
  const openContext = async (ctxId: string) => {
    await goto(`#/contexts/${encodeURIComponent(ctxId)}`)
    // The supersession block renders once the lineage answered: everything is on the page.
    await page.waitForSelector(`.inspector[data-ctx-id="${ctxId}"] [data-next]`, { timeout: WAIT_MS })
  }

  /** A producer-signed retraction (RFC-ACDP-0013 §5) posted to the registry's lifecycle route. */
  const retract = (ctxId: string, reason: string) =>
    postLifecycleEvent(stack.registryUrl, key, ctxId, 'retract', reason)

  beforeAll(async () => {
    await ensureConsoleBuild()
    running = await startConsoleStack({ name: 'console-inspector' })
    stack = running.stack
    key = createProducerKey()
    producer = createProducer({ registryUrl: stack.registryUrl, key })
    const first = await producer.publish({
      type: 'analysis',
      title: 'quarterly forecast, first cut',
      data_refs: [
        {
          type: 'supporting_info',
          embedded: { encoding: 'utf8', content: 'q1,q2\n4,5\n', content_hash: sha256('q1,q2\n4,5\n') },
        },
        {
          type: 'primary_result',
          location: 'https://data.example.com/forecast.csv',
          format: 'csv',
          size_bytes: 2048,
          content_hash: sha256('elsewhere'),
        },
      ],
    })
    const second = await producer.publish(
      { type: 'analysis', title: 'quarterly forecast, revised' },
      { supersedes: first.ctxId },
    )
    v1 = first.ctxId
    v2 = second.ctxId
    lineageId = String((first.response as { lineage_id?: unknown }).lineage_id)
    await retract(v1, REASON)
    browser = await launchChromium()
    const context = await browser.newContext({ viewport: DESKTOP_VIEWPORT })
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: stack.controlPlaneUrl })
    page = await context.newPage()
    page.on('pageerror', (error) => pageErrors.push(error.message))
    await signIn(page, stack.controlPlaneUrl, stack.secrets.control_plane_api_key)
  }, 120_000)

  afterAll(async () => {
    await browser?.close()
    await running?.close()
  })

  it('a retracted version shows the banner with its reason, its registry state and a link to the version after it', async () => {
    await openContext(v1)
    const banner = page.getByRole('alert').filter({ hasText: 'Retracted.' })
    expect(await banner.count()).toBe(1)
    expect(await banner.locator('[data-retraction-reason]').textContent()).toBe(REASON)
    expect(await banner.locator('time').count()).toBe(1)
    // Registry state: retraction outranks supersession (RFC-ACDP-0004 §4.1).
    expect(await page.getAttribute('[data-state-status]', 'data-state-status')).toBe('retracted')
    expect(await page.textContent('[data-state-version]')).toBe('1')
    const lineage = page.locator(`a[data-lineage-link="${lineageId}"]`)
    const authority = /^acdp:\/\/([^/]+)\//.exec(v1)![1]!
    expect(await lineage.getAttribute('href')).toBe(
      `#/lineages/${encodeURIComponent(lineageId)}?registry=${encodeURIComponent(authority)}`,
    )
    expect(await page.getAttribute('[data-next]', 'data-next')).toBe(v2)
    // Body and signature still verify: a retraction withdraws the context, it does not forge it.
    expect(await page.getAttribute('[data-subject=body]', 'data-mark')).toBe('verified')
    expect(await page.getAttribute('[data-subject=signature]', 'data-mark')).toBe('verified')
    // DataRefs: the embedded content is hashed in the browser; a location on another origin cannot be fetched.
    await page.waitForSelector('[data-data-ref="0"][data-mark=verified]', { timeout: WAIT_MS })
    expect(await page.getAttribute('[data-data-ref="1"]', 'data-mark')).toBe('not_available')
    const elsewhere = await page.textContent('[data-data-ref="1"]')
    expect(elsewhere).toContain('https://data.example.com/forecast.csv')
    expect(elsewhere).toContain('csv · 2048 bytes')
    expect(elsewhere).toContain("is not on the console's origin")
    // A location the browser may not reach is no failure of the context: the verdict line does not say FAILED.
    expect(await page.textContent('.inspector details summary')).not.toContain('FAILED')
    expect(await seriousViolations(page)).toEqual([])
    await page.screenshot({ path: join(SCREENSHOTS, 'context-retracted.png'), fullPage: true })
    // The next-version link opens v2, whose page links back to v1 and carries no banner.
    await page.locator(`[data-next] a[data-ctx-link="${v2}"]`).click()
    await page.waitForSelector(`.inspector[data-ctx-id="${v2}"] [data-next]`, { timeout: WAIT_MS })
    expect(await page.getAttribute('[data-previous]', 'data-previous')).toBe(v1)
    expect(await page.locator(`[data-previous] a[data-ctx-link="${v1}"]`).count()).toBe(1)
    expect(await page.getAttribute('[data-next]', 'data-next')).toBe('none')
    expect(await page.getAttribute('[data-state-status]', 'data-state-status')).toBe('active')
    expect(await page.locator('[data-retracted]').count()).toBe(0)
    expect(await page.locator('[data-data-ref]').count()).toBe(0)
  })

  it('the lineage head receipt and key revocation rows carry a state and a reason', async () => {
    await openContext(v2)
    for (const stage of ['lineage_head_receipt', 'key_revocation']) {
      const row = page.locator(`.verdicts li[data-evidence=${stage}]`)
      expect(await row.count(), stage).toBe(1)
      expect(['verified', 'failed', 'not_available', 'not_checked']).toContain(await row.getAttribute('data-mark'))
      expect((await row.locator('.detail').textContent())!.length, stage).toBeGreaterThan(10)
    }
    // v2 is the lineage's head: its head receipt, verified against the registry's relayed DID document.
    expect(await page.getAttribute('[data-evidence=lineage_head_receipt]', 'data-mark')).toBe('verified')
    // The producer's revocations searched on its registry through the control plane, as the CLI does: none found.
    expect(await page.getAttribute('[data-evidence=key_revocation]', 'data-mark')).toBe('verified')
    expect(await page.textContent('[data-evidence=key_revocation] .detail')).toContain(
      `0 verified key revocation(s) by ${key.did} on this registry`,
    )
  })

  it('copies the body JSON to the clipboard and says so', async () => {
    await openContext(v2)
    const status = page.locator('[data-copy-status]')
    expect(await status.getAttribute('data-copy-status')).toBe('idle')
    await page.getByRole('button', { name: 'Copy body JSON' }).click()
    await expect.poll(() => status.getAttribute('data-copy-status'), { timeout: WAIT_MS }).toBe('copied')
    expect(await status.textContent()).toBe('copied')
    const copied = JSON.parse((await page.evaluate('navigator.clipboard.readText()')) as string) as { ctx_id: string }
    expect(copied.ctx_id).toBe(v2)
    expect(JSON.stringify(copied, null, 2)).toBe(await page.textContent('pre[data-body-json]'))
    // A route change starts the inspector (and the copy status) afresh.
    await page.evaluate(`location.hash = ${JSON.stringify(`#/contexts/${encodeURIComponent(v1)}`)}`)
    await page.waitForSelector(`.inspector[data-ctx-id="${v1}"] [data-next]`, { timeout: WAIT_MS })
    expect(await page.getAttribute('[data-copy-status]', 'data-copy-status')).toBe('idle')
    expect(await page.locator(`.inspector[data-ctx-id="${v2}"]`).count()).toBe(0)
  })

  it('the context page does not scroll sideways at 390 px and has no serious axe violation', async () => {
    await page.setViewportSize({ width: 390, height: 844 })
    try {
      for (const ctxId of [v1, v2]) {
        await openContext(ctxId)
        const overflow = await horizontalOverflow(page)
        expect(overflow.scrollWidth, overflow.wide.join(' | ')).toBeLessThanOrEqual(overflow.clientWidth)
        expect(await seriousViolations(page), ctxId).toEqual([])
      }
      await openContext(v1)
      await page.screenshot({ path: join(SCREENSHOTS, 'narrow-context-retracted.png'), fullPage: true })
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 })
    }
    expect(pageErrors).toEqual([])
  })
})
