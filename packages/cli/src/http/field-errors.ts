/**
 * The registry's field-level explanation of a refused request (`error.details.errors`, one `{ path, message }`
 * per offending member), read from an attacker-controlled body: only string members are kept, each cut to one
 * short line, and at most {@link MAX_FIELD_ERRORS} of them, so a hostile answer cannot flood the terminal.
 */
import type { FieldError } from '../exit-codes.js'
import { sanitizeTerminalText } from '../render/text-table.js'

/** How many field errors the CLI prints at most. */
export const MAX_FIELD_ERRORS = 20

/** The `errors` array of a registry error's `details`, sanitized; empty when absent or malformed. */
export function readFieldErrors(details: unknown): FieldError[] {
  const errors = isRecord(details) ? details['errors'] : undefined
  if (!Array.isArray(errors)) return []
  const out: FieldError[] = []
  for (const entry of errors.slice(0, MAX_FIELD_ERRORS)) {
    if (!isRecord(entry) || typeof entry['path'] !== 'string' || typeof entry['message'] !== 'string') continue
    out.push({ path: clip(entry['path'], 200), message: clip(entry['message'], 300) })
  }
  return out
}

function clip(text: string, max: number): string {
  const flat = sanitizeTerminalText(text)
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
