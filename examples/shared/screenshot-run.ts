/**
 * Screenshots a run's page in the console (the images of docs/integrations/): signs in with the dev stack's API
 * key in headless Debian Chromium (`/usr/bin/chromium`, driven by playwright-core; no browser is downloaded),
 * opens the run, waits until its lineage graph shows every context, and writes a PNG.
 *
 *   ACDP_DATA_DIR=/tmp/stack node examples/shared/screenshot-run.ts <run_id> <out.png>
 */
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { chromium } from 'playwright-core'

const [runId, out] = process.argv.slice(2)
if (runId === undefined || out === undefined) throw new Error('usage: screenshot-run.ts <run_id> <out.png>')
const dataDir = resolve(process.env['ACDP_DATA_DIR'] ?? 'data')
const stack = JSON.parse(readFileSync(resolve(dataDir, 'dev-stack.json'), 'utf8')) as { control_plane_url: string }
const secrets = JSON.parse(readFileSync(resolve(dataDir, 'dev-secrets.json'), 'utf8')) as {
  control_plane_api_key: string
}
const base = stack.control_plane_url
const lineage = (await (
  await fetch(`${base}/runs/${encodeURIComponent(runId)}/lineage`, {
    headers: { authorization: `Bearer ${secrets.control_plane_api_key}` },
  })
).json()) as { nodes: unknown[] }

const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
})
try {
  const page = await (await browser.newContext({ viewport: { width: 1600, height: 900 } })).newPage()
  await page.goto(`${base}/console/`)
  await page.waitForSelector('#api-key', { timeout: 15_000 })
  await page.fill('#api-key', secrets.control_plane_api_key)
  await page.keyboard.press('Enter')
  await page.waitForSelector('[data-testid=tenant]', { timeout: 15_000 })
  await page.goto('about:blank')
  await page.goto(`${base}/console/#/runs/${encodeURIComponent(runId)}`)
  await page.waitForSelector(`svg.lineage[data-node-count="${lineage.nodes.length}"]`, { timeout: 15_000 })
  await page.waitForSelector('.feed-status[data-state=live]', { timeout: 15_000 })
  await page.screenshot({ path: out, fullPage: true })
  console.log(`${out}: run ${runId}, ${lineage.nodes.length} contexts`)
} finally {
  await browser.close()
}
