/**
 * Test support: what a rejected call threw, as `{ code, reason }` (a ProtocolError's code and `details.reason`),
 * so tests can assert the domain error's identity in one `toEqual`.
 */
import { isProtocolError } from '../../src/errors.js'

/**
 * Runs `run` (sync or async) and returns the code and `details.reason` it threw.
 *
 * @throws Error when `run` does not throw: a test expecting a rejection fails instead of passing silently.
 */
export async function reasonOf(run: () => unknown): Promise<{ code: string | undefined; reason: string | undefined }> {
  try {
    await run()
  } catch (error) {
    return {
      code: (error as { code?: string }).code,
      reason: (error as { details?: { reason?: string } }).details?.reason,
    }
  }
  throw new Error('expected a rejection')
}

/**
 * Runs `run` synchronously and returns the ProtocolError code it threw, or undefined when it returned.
 *
 * @throws whatever `run` threw when it is not a ProtocolError (a raw error is a bug the test must show).
 */
export function protocolErrorCodeOf(run: () => unknown): string | undefined {
  try {
    run()
    return undefined
  } catch (error) {
    if (isProtocolError(error)) return error.code
    throw error
  }
}

/**
 * Runs `run` synchronously and returns `code:reason` of the ProtocolError it threw, or `'no error'`.
 *
 * @throws whatever `run` threw when it is not a ProtocolError.
 */
export function protocolErrorReasonOf(run: () => unknown): string {
  try {
    run()
    return 'no error'
  } catch (error) {
    if (isProtocolError(error)) return `${error.code}:${error.details?.['reason']}`
    throw error
  }
}
