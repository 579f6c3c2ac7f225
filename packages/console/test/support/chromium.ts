/**
 * The headless Chromium the browser suites drive: playwright-core launching the Debian `chromium` binary (no
 * bundled browser download), with the flags every suite uses.
 */
import { existsSync } from 'node:fs'
import { type Browser, chromium } from 'playwright-core'

export const CHROMIUM = '/usr/bin/chromium'
export const hasChromium = existsSync(CHROMIUM)
/** Headless without a sandbox (containers run as root) or a GPU; no background fetches of Google services. */
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking']

/** Prints the one line a suite leaves when it skips for want of Chromium. */
export function warnWhenChromiumAbsent(suite: string): void {
  if (!hasChromium) console.warn(`[${suite}] skipped: ${CHROMIUM} is absent (apt-get install -y chromium)`)
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS })
}
