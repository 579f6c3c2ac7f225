/**
 * The cross-package suites' bounded wait: polls `probe` until it returns a value other than undefined, or fails
 * naming what it waited for. Absence is never proven with it (wait for a later event instead).
 */
export async function eventually<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  options: { timeoutMs: number; intervalMs?: number },
): Promise<T> {
  const deadline = Date.now() + options.timeoutMs
  for (;;) {
    const value = await probe()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out after ${options.timeoutMs} ms waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 100))
  }
}
