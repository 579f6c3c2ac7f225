/**
 * Driving the console as an operator would: sign in with an API key, open a page by its hash route with a full
 * load, wait until its data is in, read the control plane's API for the figures a page must equal, and the folder
 * the screenshots are written to.
 */
import { fileURLToPath } from 'node:url'
import type { Page } from 'playwright-core'
import { expect } from 'vitest'

/** Every wait of the browser suites is bounded by this (a page, a poll, a selector). */
export const WAIT_MS = 15_000
/** docs/console/, where each suite leaves its screenshots. */
export const SCREENSHOTS = fileURLToPath(new URL('../../../../docs/console/', import.meta.url))
/** The status lines a page shows while its reads are under way. */
export const LOADING_LINE = /^(Loading|Retrieving|Signing)/

/** Signs in through the console's form; resolves once the header shows the tenant. */
export async function signIn(page: Page, base: string, apiKey: string, hash = ''): Promise<void> {
  await page.goto(`${base}/console/${hash}`)
  await page.fill('#api-key', apiKey)
  await page.keyboard.press('Enter')
  await page.waitForSelector('[data-testid=tenant]', { timeout: WAIT_MS })
}

/** A full page load (from about:blank, so a hash-only change cannot turn into a same-document navigation). */
export async function openConsolePage(page: Page, base: string, hash: string): Promise<void> {
  await page.goto('about:blank')
  await page.goto(`${base}/console/${hash}`)
  await page.waitForSelector('main h1', { timeout: WAIT_MS })
}

/** Waits until the page has its data: no status line of `loading` left in main. */
export async function waitForPageData(page: Page, loading: RegExp = LOADING_LINE): Promise<void> {
  await expect
    .poll(() => page.locator('main [role=status]', { hasText: loading }).count(), { timeout: WAIT_MS })
    .toBe(0)
}

/** GET `path` from the control plane with the API key, expecting 200; the parsed JSON body. */
export async function getJson<T>(base: string, apiKey: string, path: string): Promise<T> {
  const response = await fetch(`${base}${path}`, { headers: { authorization: `Bearer ${apiKey}` } })
  expect(response.status, path).toBe(200)
  return (await response.json()) as T
}
