/**
 * The DataRefs' own verification for the inspector's DataRef list: the protocol's `verifyDataRefs` (RFC-ACDP-0002
 * §6.5–§6.7) with the browser's same-origin client, run only once the body verified — the same order as the
 * protocol's report, whose `data_ref[i]` stages come after the body's. The report itself is left as the CLI prints
 * it without `--fetch-data` (locations not fetched), so a location the browser may not reach never turns the
 * verdict line into a failure.
 */
import { type VerificationStage, verifyDataRefs } from '@acdp/protocol/verify'
import type { Inspection } from './inspect-context.js'
import { sameOriginDataRefClient } from './same-origin-data-refs.js'

export async function verifyDataRefStages(
  envelope: unknown,
  inspection: Inspection,
  origin: string,
  fetchImpl?: typeof fetch,
): Promise<VerificationStage[]> {
  const fromReport = (inspection.report?.stages ?? []).filter((stage) => stage.name.startsWith('data_ref['))
  const body = (envelope as { body?: unknown } | null)?.body
  const bodyVerified = inspection.items.some((item) => item.subject === 'body' && item.mark === 'verified')
  if (!bodyVerified || typeof body !== 'object' || body === null) return fromReport
  return verifyDataRefs(body as Record<string, unknown>, { client: sameOriginDataRefClient(origin, fetchImpl) })
}
