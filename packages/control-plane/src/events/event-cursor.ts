/**
 * Keyset cursors of event listings: the (event_ts, id) of the last row of a page, so the next page starts
 * strictly after it and rows sharing a timestamp are never skipped or repeated (an offset or a timestamp alone would do one or the other).
 * Opaque to clients: base64url of `<event_ts>.<id>`.
 */
import { ControlPlaneError } from '../core/errors.js'

export interface EventCursor {
  eventTs: number
  id: number
}

const CURSOR_TEXT = /^(0|[1-9][0-9]{0,15})\.([1-9][0-9]{0,15})$/

/** Encodes the position after `row`. */
export function encodeEventCursor(row: EventCursor): string {
  return Buffer.from(`${row.eventTs}.${row.id}`, 'utf8').toString('base64url')
}

/**
 * Decodes a cursor.
 *
 * @param text attacker-controlled.
 * @throws ControlPlaneError VALIDATION_ERROR when it is not a cursor this service issued.
 */
export function decodeEventCursor(text: string): EventCursor {
  const decoded = /^[A-Za-z0-9_-]{1,64}$/.test(text) ? Buffer.from(text, 'base64url').toString('utf8') : ''
  const match = CURSOR_TEXT.exec(decoded)
  const eventTs = Number(match?.[1])
  const id = Number(match?.[2])
  if (match === null || !Number.isSafeInteger(eventTs) || !Number.isSafeInteger(id)) {
    throw new ControlPlaneError('VALIDATION_ERROR', 'cursor is malformed')
  }
  return { eventTs, id }
}
