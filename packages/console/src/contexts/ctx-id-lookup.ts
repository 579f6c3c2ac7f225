/**
 * What the header's lookup box accepts: a ctx_id as RFC-ACDP-0001 §5.5 writes it (`acdp://<hostname>/<uuid v4>`).
 * Anything else is refused with a sentence saying why, before any request is made, so a typo or a pasted run id
 * never turns into a confusing "not found" from the registry.
 */
import { CTX_ID_PATTERN } from '@acdp/protocol/verify'

const CTX_ID = new RegExp(CTX_ID_PATTERN)

export type LookupResult = { ok: true; ctxId: string } | { ok: false; problem: string }

export function parseCtxIdLookup(text: string): LookupResult {
  const value = text.trim()
  if (value === '') return { ok: false, problem: 'Enter a ctx_id (acdp://<registry host>/<uuid>).' }
  if (!value.toLowerCase().startsWith('acdp:')) {
    return { ok: false, problem: `“${clip(value)}” is not a ctx_id: context ids start with acdp://.` }
  }
  if (!CTX_ID.test(value)) {
    return {
      ok: false,
      problem: `“${clip(value)}” is not a well-formed ctx_id: expected acdp://<lowercase registry host>/<lowercase uuid v4>.`,
    }
  }
  return { ok: true, ctxId: value }
}

function clip(value: string): string {
  return value.length > 60 ? `${value.slice(0, 59)}…` : value
}
