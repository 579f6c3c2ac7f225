/** Matchers for the outbound client's `ProtocolError`s: assert code and `details.reason`, never message text. */
import { expect } from 'vitest'

/** Asserts `promise` rejects with ProtocolError `code` whose details contain `details` (at least `reason`). */
export async function expectOutboundError(
  promise: Promise<unknown>,
  code: 'outbound_refused' | 'outbound_failed' | 'outbound_too_large',
  details: Record<string, unknown>,
): Promise<void> {
  await expect(promise).rejects.toMatchObject({
    name: 'ProtocolError',
    code,
    details: expect.objectContaining(details),
  })
}
