/**
 * Reading a response body under a byte cap (RFC-ACDP-0006 §7.3): the cap is enforced while streaming, before
 * any parse, and the stream is destroyed the moment it is exceeded, so an attacker cannot make us buffer more
 * than `maxBodyBytes` (+ one chunk in flight) whatever Content-Length claims or omits.
 */
import { ProtocolError } from '../errors.js'

/** The part of undici's response body this reader uses. */
export interface StreamingBody extends AsyncIterable<Uint8Array> {
  destroy(error?: Error): unknown
  once(event: 'error', listener: (error: Error) => void): unknown
}

/**
 * Collects `body` into one buffer of at most `maxBodyBytes` bytes.
 *
 * @param body attacker-controlled bytes from the remote server.
 * @param declaredLength the Content-Length header, if any; one over the cap fails before reading.
 * @throws ProtocolError `outbound_too_large` (`details.limit_bytes`, `details.reason`: `content_length` or `body`).
 */
export async function readBodyWithCap(
  body: StreamingBody,
  maxBodyBytes: number,
  declaredLength: string | undefined,
): Promise<Uint8Array> {
  if (declaredLength !== undefined && /^[0-9]+$/.test(declaredLength) && Number(declaredLength) > maxBodyBytes) {
    throw abandon(body, tooLarge(maxBodyBytes, 'content_length'))
  }
  const chunks: Uint8Array[] = []
  let total = 0
  for await (const chunk of body) {
    total += chunk.byteLength
    if (total > maxBodyBytes) {
      throw abandon(body, tooLarge(maxBodyBytes, 'body'))
    }
    chunks.push(chunk)
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total)
}

/**
 * Destroys the stream (and with it the connection, so the server stops sending) and returns `error` for the
 * caller to throw. The stream re-emits that same error; nobody else reads the stream, so that copy is dropped.
 */
function abandon(body: StreamingBody, error: ProtocolError): ProtocolError {
  body.once('error', () => undefined)
  body.destroy(error)
  return error
}

function tooLarge(limitBytes: number, reason: 'content_length' | 'body'): ProtocolError {
  return new ProtocolError('outbound_too_large', `outbound response body exceeds ${limitBytes} bytes`, {
    details: { reason, limit_bytes: limitBytes },
  })
}
