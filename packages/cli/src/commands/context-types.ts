/**
 * The `type` values a context may have, read from the wire schema (`ContextType`, RFC-ACDP-0002) so the help
 * text can never list other values than the registry accepts.
 */
import { ContextType } from '@acdp/protocol'

/** `data_snapshot, analysis, …, or a namespaced type matching ^…$`. */
export function describeContextTypes(): string {
  const members = (ContextType as unknown as { anyOf: Array<{ const?: unknown; pattern?: unknown }> }).anyOf
  const names = members.flatMap((member) => (typeof member.const === 'string' ? [member.const] : []))
  const patterns = members.flatMap((member) => (typeof member.pattern === 'string' ? [member.pattern] : []))
  const custom = patterns.length === 0 ? '' : `, or a namespaced custom type matching ${patterns.join(' or ')}`
  return `${names.join(', ')}${custom}`
}
