/**
 * At most one call per `intervalMs`, the last request never dropped: the first call runs at once, calls during
 * the quiet period collapse into one trailing call at its end. The dashboard uses it to re-read its figures as
 * the live ticker moves without issuing one request per event on a busy tenant.
 */
export interface Throttled {
  (): void
  /** Drops a pending trailing call (on unmount). */
  cancel(): void
}

export function throttle(run: () => void, intervalMs: number, now: () => number = Date.now): Throttled {
  let last = -Infinity
  let timer: ReturnType<typeof setTimeout> | undefined
  const fire = () => {
    timer = undefined
    last = now()
    run()
  }
  const throttled = (() => {
    if (timer !== undefined) return
    const wait = last + intervalMs - now()
    if (wait <= 0) fire()
    else timer = setTimeout(fire, wait)
  }) as Throttled
  throttled.cancel = () => {
    clearTimeout(timer)
    timer = undefined
  }
  return throttled
}
