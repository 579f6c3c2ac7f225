/**
 * The Trust and Security pages in real headless Chromium against the dev stack on loopback sockets (registry and
 * control plane wired by webhook, the receipt audit and the log witness on and driven by the test): every figure
 * of the Trust page (the log evidence per run and per registry included) equals what the API answers, a receipt the audit finds wrong is listed as a failed context,
 * the Security page shows the caller, the JWKS and the revocation feed as served; no horizontal overflow at
 * 390 px, no serious axe-core violation, every control reachable from the keyboard; screenshots into docs/console/.
 *
 * Skips with one printed line when /usr/bin/chromium is absent. Loopback only; every wait is bounded.
 */
import { generateKeyPairSync, randomUUID } from 'node:crypto'
import { join } from 'node:path'
import { createProducer, createProducerKey, encodeDidKey, type Producer } from '@acdp/protocol'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunningDevStack } from '../../cli/src/dev/dev-stack.js'
import { createTestAgent, issueToken } from '../../control-plane/test/support/agent-keys.js'
import { boundHeaders } from '../../control-plane/test/support/signed-delivery.js'
import { seriousViolations, unlabelledControls } from './support/accessibility.js'
import { hasChromium, launchChromium, warnWhenChromiumAbsent } from './support/chromium.js'
import { ensureConsoleBuild } from './support/console-build.js'
import { getJson, openConsolePage, SCREENSHOTS, signIn, waitForPageData, WAIT_MS } from './support/console-session.js'
import { type ConsoleStack, startConsoleStack } from './support/console-stack.js'
import { DESKTOP_VIEWPORT, horizontalOverflow, NARROW_VIEWPORT, signOutOffsetFromBrand } from './support/page-layout.js'

warnWhenChromiumAbsent('trust-security-browser')
/** A non-admin key of the same tenant (the Security page's refusals). */
const OPERATOR_KEY = 'operator-key-0123456789abcdef'
/** An agent whose key is pinned and who is issued (then revoked) a token. */
const agent = createTestAgent('console-security')
/** The one witness the control plane trusts for quorum: nobody in the stack runs it, so no head meets quorum. */
// A real key (32 random bytes are not always a point on the curve, which encodeDidKey refuses).
const TRUSTED_WITNESS = encodeDidKey({
  algorithm: 'ed25519',
  publicKey: Buffer.from(generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }).x ?? '', 'base64url'),
})

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- API bodies are untyped JSON in tests
type Json = any

describe.skipIf(!hasChromium)('trust and security pages in headless Chromium', () => {
  let running: ConsoleStack
  let stack: RunningDevStack
  let browser: Browser
  let page: Page
  let apiKey: string
  let producer: Producer
  let base: string
  const runId = `trust-run-${Date.now().toString(36)}`
  let forgedCtxId = ''
  const pageErrors: string[] = []

  const api = (path: string): Promise<Json> => getJson<Json>(base, apiKey, path)
  const goto = async (hash: string) => {
    await openConsolePage(page, base, hash)
    await waitForPageData(page, /^Loading/)
  }

  beforeAll(async () => {
    await ensureConsoleBuild()
    running = await startConsoleStack({
      name: 'trust-browser',
      // The witness and the receipt audit on, each run by the test (never by a timer).
      controlPlaneEnv: {
        LOG_WITNESS_ENABLED: 'true',
        LOG_WITNESS_SCHEDULE: 'false',
        RECEIPT_AUDIT_ENABLED: 'true',
        RECEIPT_AUDIT_SCHEDULE: 'false',
        RECEIPT_AUDIT_SETTLE_MS: '0',
        // The log reconciliation too: its walk records each publication's log leaf (the log evidence per run).
        LOG_RECONCILE_ENABLED: 'true',
        LOG_RECONCILE_SCHEDULE: 'false',
        // Quorum consumption on: the page's quorum line and cosigner standings come from a real count.
        WITNESS_QUORUM_ENABLED: 'true',
        WITNESS_QUORUM_TRUSTED: TRUSTED_WITNESS,
        WITNESS_QUORUM_MIN_WITNESSES: '1',
        // Token issuance under an EdDSA key (published in the JWKS), one pinned agent, one operator key.
        TOKEN_ISSUANCE_ENABLED: 'true',
        JWT_SIGNING_ALG: 'EdDSA',
        JWT_SECRET: '',
        JWT_KID: 'console-k1',
        JWT_PRIVATE_KEY_PEM: generateKeyPairSync('ed25519')
          .privateKey.export({ format: 'pem', type: 'pkcs8' })
          .toString(),
        CONTROL_PLANE_PINNED_KEYS: agent.pinnedEntry(),
        AUTH_API_KEYS: OPERATOR_KEY,
      },
    })
    stack = running.stack
    base = stack.controlPlaneUrl
    apiKey = stack.secrets.control_plane_api_key
    producer = createProducer({ registryUrl: stack.registryUrl, key: createProducerKey() })

    // Three genuine publications in one run.
    const first = await producer.publish({ type: 'analysis', title: 'trusted one' }, { runId })
    await producer.publish({ type: 'analysis', title: 'trusted two', derived_from: [first.ctxId] }, { runId })
    await producer.publish({ type: 'analysis', title: 'trusted three' }, { runId })
    // A delivery announcing a context the registry never stored, carrying another context's receipt: the audit
    // cannot read it back and checks the webhook's copy, whose receipt is bound to a different ctx_id.
    forgedCtxId = first.ctxId.replace(/[^/]+$/, randomUUID())
    const forged = JSON.stringify({
      event_id: randomUUID(),
      schema_version: '1.0',
      type: 'context_published',
      registry_authority: 'localhost',
      registry_base_url: stack.registryUrl,
      ctx_id: forgedCtxId,
      lineage_id: String(first.response['lineage_id']),
      agent_id: producer.did,
      context_type: 'analysis',
      visibility: 'public',
      version: 1,
      created_at: new Date().toISOString(),
      derived_from: [],
      run_id: runId,
      registry_receipt: first.response['registry_receipt'],
    })
    const delivered = await fetch(`${base}/ingest/acdp`, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...boundHeaders(forged, Math.floor(Date.now() / 1000), { runId }, stack.secrets.webhook_secret),
      },
      body: forged,
    })
    expect(delivered.status).toBe(204)
    // The three webhooks arrive on their own (expect.poll is for tests only: a bounded loop here).
    const deadline = Date.now() + WAIT_MS
    const publications = () => api(`/events?runId=${encodeURIComponent(runId)}&eventType=context_published`)
    while ((await publications()).data.length < 4) {
      if (Date.now() > deadline) throw new Error('the publications did not all arrive')
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    // One audit sweep, one walk of the log and one witness poll, whose conclusions are what the page must show.
    await stack.controlPlane.app.receiptAudit.auditor!.sweepNow()
    await stack.controlPlane.app.logReconcile.reconciler!.reconcileNow()
    await stack.controlPlane.app.witness.store.syncCursors(Date.now())
    await stack.controlPlane.app.witness.poller!.pollDue()
    // That poll cosigned the head; the registry collects our cosignature (it polls our /log/witness on its own
    // schedule) and serves it back beside the checkpoint, where the next due poll records it as our own.
    const cosigned = async () =>
      ((await api('/registries/localhost/log-witness')).checkpoints[0]?.cosigners ?? []).some(
        (c: Json) => c.name === stack.witnessDid,
      )
    const cosignDeadline = Date.now() + 2 * WAIT_MS
    while (!(await cosigned())) {
      if (Date.now() > cosignDeadline) throw new Error('our cosignature was not served back by the registry')
      await new Promise((resolve) => setTimeout(resolve, 200))
      await stack.controlPlane.app.witness.poller!.pollDue()
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
  })

  it('the trust page shows every registry figure, failed context and run count as the API serves them', async () => {
    const summary = await api('/receipt-audit/summary?runs=20')
    const failed = await api('/receipt-audit/verdicts?verdict=discrepancy&limit=50')
    const witness = await api('/registries/localhost/log-witness')
    // What the stack produced: the genuine receipts verified, the forged one flagged, the log head witnessed.
    const local = summary.registries.find((r: Json) => r.registryAuthority === 'localhost')
    expect(local).toMatchObject({ published: 4, audited: 4, verified: 3, discrepancies: 1, openDiscrepancies: 1 })
    expect(failed.data.map((v: Json) => v.ctxId)).toEqual([forgedCtxId])
    expect(witness.treeSize).toBeGreaterThanOrEqual(3)

    await goto('#/trust')
    expect(await page.textContent('main h1')).toBe('Trust')
    const cards = page.locator('[data-trust-registry]')
    expect(await cards.evaluateAll((all) => all.map((c) => c.getAttribute('data-trust-registry')))).toEqual(
      summary.registries.map((r: Json) => r.registryAuthority),
    )
    const card = page.locator('[data-trust-registry="localhost"]')
    const figure = async (name: string) =>
      Number(await card.locator(`[data-figure="${name}"]`).getAttribute('data-value'))
    expect(await figure('published')).toBe(local.published)
    expect(await figure('audited')).toBe(local.audited)
    expect(await figure('receipt-verified')).toBe(local.verified + local.verifiedHistorical)
    expect(await figure('verified-historical')).toBe(local.verifiedHistorical)
    expect(await figure('structural')).toBe(local.structural)
    expect(await figure('no-receipt')).toBe(local.noReceipt)
    expect(await figure('discrepancies')).toBe(local.discrepancies)
    expect(await figure('open-discrepancies')).toBe(local.openDiscrepancies)
    expect(await figure('errors')).toBe(local.errors)
    expect(await figure('tree-size')).toBe(witness.treeSize)
    expect(await figure('open-witness-alerts')).toBe(0)
    // How the head is witnessed: the quorum line and every cosigner with its standing, as served.
    const head = witness.checkpoints[0]
    expect(head).toMatchObject({ witnessedCount: 0, meetsQuorum: false, quorumMin: 1 })
    expect(head.cosigners).toEqual([{ name: stack.witnessDid, standing: 'own' }])
    expect(await figure('cosignatures')).toBe(head.witnessedCount)
    expect(await figure('quorum-min')).toBe(head.quorumMin)
    expect(await card.locator('[data-quorum-line]').textContent()).toBe(
      `${head.witnessedCount} of ${head.quorumMin} needed — not met`,
    )
    const cosigners = card.locator('[data-cosigner]')
    expect(
      await cosigners.evaluateAll((all) =>
        all.map((li) => ({ name: li.getAttribute('data-cosigner'), standing: li.getAttribute('data-standing') })),
      ),
    ).toEqual(head.cosigners)
    expect(await cosigners.first().textContent()).toBe(`${stack.witnessDid} — our own cosignature — never counts`)
    // The shown text says the same as the attributes.
    expect(await card.textContent()).toContain(`${local.audited} of ${local.published} publications audited (100 %)`)

    const failedRows = page.locator('[data-failed-ctx]')
    expect(await failedRows.evaluateAll((all) => all.map((r) => r.getAttribute('data-failed-ctx')))).toEqual(
      failed.data.map((v: Json) => v.ctxId),
    )
    expect(await failedRows.first().textContent()).toContain(failed.data[0].discrepancies[0])

    const run = summary.runs.find((r: Json) => r.runId === runId)
    expect(run).toMatchObject({ published: 4, audited: 4, verified: 3, discrepancies: 1 })
    const runRow = page.locator(`[data-trust-run="${runId}"]`)
    expect(Number(await runRow.getAttribute('data-published'))).toBe(run.published)
    expect(Number(await runRow.getAttribute('data-evidenced'))).toBe(run.verified + run.verifiedHistorical)
    expect(Number(await runRow.getAttribute('data-discrepancies'))).toBe(run.discrepancies)
    // Log evidence: the three genuine publications are leaves under the witnessed head, the forged one is in no
    // log; the head meets no quorum (the trusted witness is not running), so none is fully evidenced.
    expect(run).toMatchObject({ inLog: 3, underWitnessedHead: 3, fullyEvidenced: 0 })
    expect(local).toMatchObject({ inLog: 3, underWitnessedHead: 3, fullyEvidenced: 0 })
    expect(Number(await runRow.getAttribute('data-fully-evidenced'))).toBe(run.fullyEvidenced)
    expect(Number(await runRow.getAttribute('data-in-log'))).toBe(run.inLog)
    expect(Number(await runRow.getAttribute('data-under-witnessed-head'))).toBe(run.underWitnessedHead)
    expect(await runRow.textContent()).toContain(`${run.fullyEvidenced} of ${run.published} (0 %)`)
    expect(await figure('in-log')).toBe(local.inLog)
    expect(await figure('under-witnessed-head')).toBe(local.underWitnessedHead)
    expect(await figure('fully-evidenced')).toBe(local.fullyEvidenced)
    expect(await figure('evidence-published')).toBe(local.published)

    expect(await seriousViolations(page)).toEqual([])
    expect(await unlabelledControls(page)).toBe(0)
    await page.screenshot({ path: join(SCREENSHOTS, 'trust.png'), fullPage: true })
  })

  it('the trust page is reachable and usable from the keyboard', async () => {
    await goto('#/dashboard')
    await page.evaluate('document.activeElement && document.activeElement.blur()')
    // Tab through the header until the Trust link has focus, then follow it.
    let label = ''
    for (let i = 0; i < 20 && label !== 'Trust'; i++) {
      await page.keyboard.press('Tab')
      label = String(await page.evaluate('document.activeElement.textContent'))
    }
    expect(label).toBe('Trust')
    await page.keyboard.press('Enter')
    await expect.poll(async () => page.textContent('main h1'), { timeout: WAIT_MS }).toBe('Trust')
    await page.locator('[data-failed-ctx]').first().waitFor({ timeout: WAIT_MS })
    // Every link and button of the page is in the Tab order: none is taken out of it.
    const unreachable = await page.evaluate(
      `[...document.querySelectorAll('main a[href], main button')].filter((el) => el.tabIndex < 0 || el.disabled).length`,
    )
    expect(unreachable).toBe(0)
    // The failed context's link opens its page from the keyboard.
    await page.locator('[data-failed-ctx] a[data-ctx-link]').first().focus()
    await page.keyboard.press('Enter')
    await expect.poll(() => new URL(page.url()).hash, { timeout: WAIT_MS }).toContain('#/contexts/')
    expect(pageErrors).toEqual([])
  })

  it('the security page shows the caller, the JWKS, the pinned keys and the revocation feed as served', async () => {
    const token = await issueToken(stack.controlPlane.app, agent)
    const revoked = await fetch(`${base}/auth/token/revoke`, {
      method: 'POST',
      headers: { authorization: `Bearer ${apiKey}`, 'content-type': 'application/json' },
      body: JSON.stringify({ token, reason: 'admin_revoke' }),
    })
    expect(await revoked.json()).toEqual({ revoked: true })
    const session = await api('/session')
    const jwks = await api('/.well-known/jwks.json')
    const pinned = await api('/admin/pinned-keys')
    const feed = await api('/auth/revocations?limit=50')
    expect(jwks.keys.map((k: Json) => k.kid)).toEqual(['console-k1'])
    expect(pinned.data.map((k: Json) => k.did)).toEqual([agent.did])
    expect(feed.entries.map((e: Json) => e.sub)).toEqual([agent.did])

    await goto('#/security')
    expect(await page.textContent('main h1')).toBe('Security')
    await page.locator('[data-revoked-jti]').first().waitFor({ timeout: WAIT_MS })
    expect(await page.textContent('[data-caller=tenant]')).toBe(session.tenantId)
    expect(await page.textContent('[data-caller=role]')).toBe('admin')
    const attribute = (selector: string, name: string) =>
      page.locator(selector).evaluateAll((all, n) => all.map((el) => el.getAttribute(n)), name)
    expect(await attribute('[data-jwk-kid]', 'data-jwk-kid')).toEqual(jwks.keys.map((k: Json) => k.kid))
    expect(await attribute('[data-pinned-did]', 'data-pinned-did')).toEqual(pinned.data.map((k: Json) => k.did))
    expect(await attribute('[data-revoked-jti]', 'data-revoked-jti')).toEqual(feed.entries.map((e: Json) => e.jti))
    // The token itself appears nowhere on the page.
    expect(await page.content()).not.toContain(token)
    expect(await seriousViolations(page)).toEqual([])
    expect(await unlabelledControls(page)).toBe(0)
    await page.screenshot({ path: join(SCREENSHOTS, 'security.png'), fullPage: true })
  })

  it('signed in as an operator, the security page says which reads need an admin', async () => {
    const operator = await browser.newPage()
    try {
      await operator.goto(`${base}/console/#/security`)
      await operator.fill('#api-key', OPERATOR_KEY)
      await operator.keyboard.press('Enter')
      await operator.waitForSelector('[data-caller=role]', { timeout: WAIT_MS })
      expect(await operator.textContent('[data-caller=role]')).toBe('operator')
      await operator.getByText('The revocation feed needs an admin key').waitFor({ timeout: WAIT_MS })
      await operator.getByText('The pinned keys are listed to admins').waitFor({ timeout: WAIT_MS })
      expect(await operator.locator('[data-revoked-jti], [data-pinned-did]').count()).toBe(0)
      expect(await seriousViolations(operator)).toEqual([])
    } finally {
      await operator.close()
    }
  })

  it('the header with the two new pages keeps Sign out on its line at 1280 px', async () => {
    await goto('#/security')
    expect(await signOutOffsetFromBrand(page)).toBeLessThan(8)
  })

  it('no horizontal overflow at 390 px', async () => {
    await page.setViewportSize(NARROW_VIEWPORT)
    try {
      for (const [name, hash] of [
        ['trust', '#/trust'],
        ['security', '#/security'],
      ] as const) {
        await goto(hash)
        const overflow = await horizontalOverflow(page)
        expect(overflow.scrollWidth, `${hash}: ${overflow.wide.join(' | ')}`).toBeLessThanOrEqual(overflow.clientWidth)
        await page.screenshot({ path: join(SCREENSHOTS, `narrow-${name}.png`), fullPage: true })
      }
    } finally {
      await page.setViewportSize(DESKTOP_VIEWPORT)
    }
  })
})
