/**
 * One publication with retries: a 429 or 503 from the registry (rate limit, overload) and an attempt that got no
 * answer are retried with exponential backoff and jitter, honouring Retry-After when the registry sends it, all
 * within one deadline. Every attempt carries the same Idempotency-Key (RFC-ACDP-0003 §6), so a retry of a
 * publication the registry did store answers with the same ctx_id instead of storing it twice.
 */
import { isProtocolError, type Producer, type PublishResult } from '@acdp/protocol'

export interface RetryOptions {
  maxRetries: number
  retryBaseMs: number
  /** Absolute deadline (performance.now() clock) of the whole publication. */
  deadline: number
}

/** Statuses worth retrying: the registry's rate limit and its overload answer. */
const RETRIABLE_STATUSES = new Set([429, 503])

/**
 * Publishes `body` through `producer`, retrying what can succeed later.
 *
 * @throws the last error when the retries or the deadline are spent, or at once for an answer that will not
 *   change (a schema violation, a bad signature).
 */
export async function publishWithRetry(
  producer: Producer,
  body: Record<string, unknown>,
  publishOptions: { runId: string; idempotencyKey: string },
  options: RetryOptions,
): Promise<PublishResult> {
  for (let attempt = 0; ; attempt += 1) {
    const remaining = options.deadline - performance.now()
    try {
      return await producer.publish(body, {
        ...publishOptions,
        signal: AbortSignal.timeout(Math.max(1, Math.ceil(remaining))),
      })
    } catch (error) {
      const wait = retryDelay(error, attempt, options)
      if (wait === undefined || attempt >= options.maxRetries || performance.now() + wait >= options.deadline) {
        throw error
      }
      await new Promise((resolve) => setTimeout(resolve, Math.ceil(wait)))
    }
  }
}

/** Milliseconds to wait before the next attempt, or undefined when the error is final. */
export function retryDelay(
  error: unknown,
  attempt: number,
  options: Pick<RetryOptions, 'retryBaseMs'>,
): number | undefined {
  if (!isProtocolError(error)) return undefined
  const backoff = options.retryBaseMs * 2 ** attempt
  const jittered = backoff / 2 + Math.random() * (backoff / 2)
  if (error.code === 'outbound_failed') return jittered
  if (error.code !== 'request_rejected') return undefined
  const details = (error.details ?? {}) as { status?: unknown; details?: { retry_after_seconds?: unknown } }
  if (typeof details.status !== 'number' || !RETRIABLE_STATUSES.has(details.status)) return undefined
  const retryAfter = details.details?.retry_after_seconds
  return typeof retryAfter === 'number' && retryAfter > 0 ? Math.max(jittered, retryAfter * 1000) : jittered
}
