/**
 * Strict JSON parsing for attacker-controlled text (RFC-ACDP-0008 §4.2 input validation).
 *
 * RFC-ACDP-0001 §5.2 hashes with JCS, and RFC 8785 §3.1 defines JCS only over I-JSON (RFC 7493),
 * whose §2.3 forbids duplicate member names. A body with a duplicate key has no canonical form the
 * producer and every verifier agree on (JSON.parse keeps the last value, other parsers the first),
 * so it is refused here as malformed instead of being hashed.
 */
import { ProtocolError } from '../errors.js'

/** Default nesting limit: far above any legitimate ACDP document, far below stack trouble. */
export const DEFAULT_MAX_JSON_DEPTH = 64

export type ParseJsonStrictOptions = {
  /** Maximum nesting of arrays/objects; `{}` and `[]` are depth 1. Default {@link DEFAULT_MAX_JSON_DEPTH}. */
  maxDepth?: number
}

/**
 * Parses RFC 8259 JSON text that came from outside (request bodies, fetched DID documents).
 *
 * A structural pre-scan enforces the depth limit before any value is built and detects duplicate
 * member names (compared after unescaping, so `"a"` and `"\u0061"` collide); then the native parser
 * builds the value. `__proto__` members become ordinary own properties, as with `JSON.parse`.
 *
 * @throws ProtocolError `too_deep` when nesting exceeds `maxDepth`.
 * @throws ProtocolError `malformed_input` for invalid JSON or a duplicate member name in one object
 *   (`details.reason`: `invalid_json` | `duplicate_key`).
 */
export function parseJsonStrict(text: string, opts: ParseJsonStrictOptions = {}): unknown {
  if (typeof text !== 'string') throw new TypeError('parseJsonStrict expects a string')
  const maxDepth = opts.maxDepth ?? DEFAULT_MAX_JSON_DEPTH
  if (!Number.isInteger(maxDepth) || maxDepth < 1) throw new TypeError('maxDepth must be a positive integer')
  scanStructure(text, maxDepth)
  try {
    return JSON.parse(text)
  } catch (cause) {
    throw new ProtocolError('malformed_input', 'input is not valid JSON', {
      details: { reason: 'invalid_json' },
      cause,
    })
  }
}

const QUOTE = 0x22
const BACKSLASH = 0x5c
const OPEN_OBJECT = 0x7b
const CLOSE_OBJECT = 0x7d
const OPEN_ARRAY = 0x5b
const CLOSE_ARRAY = 0x5d
const COMMA = 0x2c

/**
 * Walks brackets and strings only. It does not validate JSON grammar (the native parser does that
 * next); on garbage it simply stops, so invalid text still ends as `malformed_input`.
 */
function scanStructure(text: string, maxDepth: number): void {
  // One entry per open container: the member names seen so far, or null for an array.
  const open: (Set<string> | null)[] = []
  let expectKey = false
  const length = text.length
  for (let i = 0; i < length; i++) {
    const c = text.charCodeAt(i)
    if (c === QUOTE) {
      const end = findStringEnd(text, i + 1)
      if (end < 0) return
      if (expectKey) {
        const names = open[open.length - 1]
        if (names) {
          const raw = text.slice(i + 1, end)
          const name = raw.indexOf('\\') < 0 ? raw : unescapeName(raw)
          if (names.has(name)) {
            throw new ProtocolError('malformed_input', 'duplicate member name in a JSON object', {
              details: { reason: 'duplicate_key', key: name.length > 64 ? `${name.slice(0, 64)}…` : name },
            })
          }
          names.add(name)
        }
        expectKey = false
      }
      i = end
    } else if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (open.length >= maxDepth) {
        throw new ProtocolError('too_deep', `JSON nesting exceeds ${maxDepth} levels`, { details: { maxDepth } })
      }
      open.push(c === OPEN_OBJECT ? new Set() : null)
      expectKey = c === OPEN_OBJECT
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      if (open.length === 0) return
      open.pop()
      expectKey = false
    } else if (c === COMMA) {
      expectKey = open.length > 0 && open[open.length - 1] !== null
    }
  }
}

/** Index of the closing quote of a string whose body starts at `from`, or -1 if unterminated. */
function findStringEnd(text: string, from: number): number {
  let at = from
  for (;;) {
    const quote = text.indexOf('"', at)
    if (quote < 0) return -1
    let backslashes = 0
    for (let j = quote - 1; j >= from && text.charCodeAt(j) === BACKSLASH; j--) backslashes++
    if (backslashes % 2 === 0) return quote
    at = quote + 1
  }
}

function unescapeName(raw: string): string {
  try {
    return JSON.parse(`"${raw}"`) as string
  } catch (cause) {
    throw new ProtocolError('malformed_input', 'input is not valid JSON', {
      details: { reason: 'invalid_json' },
      cause,
    })
  }
}
