/**
 * A deadline for one unit of background work (one audit, one registry's reconciliation) under a long-lived
 * cancellation signal (the sweep's close): its signal aborts when the parent aborts or when `timeoutMs` pass,
 * whichever comes first, and `release()` — called when the work ends, in a `finally` — clears the timer and
 * detaches from the parent at once.
 *
 * Why not `AbortSignal.any([parent, AbortSignal.timeout(ms)])`: every call registers the combined signal as a
 * dependant of the parent and arms a timer that lives its full `ms`, and Node.js drops neither when the work ends,
 * only when the garbage collector gets to the combined signal; a sweep that runs for the whole life of the
 * process adds one per unit of work (a hundred thousand an hour under sustained ingest). Here each unit of work
 * holds one listener on the parent and one timer, both gone when it is released.
 */
export interface WorkDeadline {
  readonly signal: AbortSignal
  /** Ends the deadline: clears its timer and removes its listener from the parent. Idempotent. */
  release(): void
}

export function startWorkDeadline(parent: AbortSignal, timeoutMs: number): WorkDeadline {
  const controller = new AbortController()
  if (parent.aborted) {
    controller.abort(parent.reason)
    return { signal: controller.signal, release() {} }
  }
  const onParentAbort = () => {
    clearTimeout(timer)
    controller.abort(parent.reason)
  }
  const timer = setTimeout(() => {
    parent.removeEventListener('abort', onParentAbort)
    // The reason AbortSignal.timeout gives, so failure classification downstream reads it the same way.
    controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'))
  }, timeoutMs)
  // A pending deadline must not keep the process alive on its own (AbortSignal.timeout does not either).
  timer.unref()
  parent.addEventListener('abort', onParentAbort, { once: true })
  return {
    signal: controller.signal,
    release() {
      clearTimeout(timer)
      parent.removeEventListener('abort', onParentAbort)
    },
  }
}
