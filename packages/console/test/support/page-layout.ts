/** Geometry probes of the rendered page: sideways overflow (the 390 px checks) and the header's one line. */
import type { Page } from 'playwright-core'

/** The phone width every page must fit without scrolling sideways. */
export const NARROW_VIEWPORT = { width: 390, height: 844 }
export const DESKTOP_VIEWPORT = { width: 1280, height: 900 }

export interface HorizontalOverflow {
  scrollWidth: number
  clientWidth: number
  /** The first elements past the right edge, as `tag.class right`, for the failure message. */
  wide: string[]
}

/** The page's horizontal overflow: document widths and the first elements past the right edge (scrollers aside). */
export function horizontalOverflow(page: Page): Promise<HorizontalOverflow> {
  return page.evaluate(`(() => {
    const root = document.documentElement
    const wide = [...document.querySelectorAll('body *')]
      .filter((el) => el.getBoundingClientRect().right > root.clientWidth + 0.5)
      .filter((el) => !el.closest('.table-scroll, .graph-scroll, pre, .visually-hidden, .skip-link'))
      .slice(0, 5)
      .map((el) => el.tagName.toLowerCase() + '.' + el.className + ' ' + Math.round(el.getBoundingClientRect().right))
    return { scrollWidth: root.scrollWidth, clientWidth: root.clientWidth, wide }
  })()`) as Promise<HorizontalOverflow>
}

/** The vertical middle of the first element `selector` matches (two on one line have middles a few px apart). */
async function verticalMiddle(page: Page, selector: string): Promise<number> {
  const box = (await page.locator(selector).first().boundingBox())!
  return box.y + box.height / 2
}

/**
 * How far the header's Sign out button sits from the brand's line, in px: a few px when it is on the line, a line
 * height or more when the header wrapped it onto a second line.
 */
export async function signOutOffsetFromBrand(page: Page): Promise<number> {
  return Math.abs(
    (await verticalMiddle(page, '.topbar button:text("Sign out")')) - (await verticalMiddle(page, '.topbar .brand')),
  )
}
