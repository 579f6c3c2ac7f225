/**
 * JSON Canonicalization Scheme (RFC 8785), as required by RFC-ACDP-0001 §5.2 for every hash over
 * ACDP data. Written for the JSON data model only: `null`, booleans, finite numbers, well-formed
 * strings, arrays and plain objects. Anything else is refused rather than silently coerced, because
 * a value JSON.stringify would quietly drop or rewrite (undefined, NaN, a Date) would make two
 * implementations disagree on the signed bytes.
 */
import { ProtocolError } from '../errors.js'

/**
 * Nesting bound for canonicalization. Bodies that reach this deep were already refused by
 * `parseJsonStrict`; the bound exists so a cyclic or absurdly deep in-memory value fails with a
 * domain error instead of a stack overflow.
 */
export const MAX_CANONICALIZE_DEPTH = 512

const encoder = new TextEncoder()

/**
 * Returns the RFC 8785 canonical JSON text of `value` (RFC-ACDP-0001 §5.2).
 *
 * Object keys are sorted by UTF-16 code units at every level, array order is kept, numbers use the
 * ECMAScript Number-to-String algorithm (RFC 8785 §3.2.2.3: `-0` → `0`, exponent boundaries at
 * 1e21 and 1e-7), strings use the minimal JSON escaping with raw UTF-8 for everything else.
 *
 * @throws ProtocolError `not_canonicalizable` for a non-finite number, a string or key holding a
 *   lone surrogate, `undefined` (also as an object member or array element), a function, symbol or
 *   bigint, an object that is not a plain object or array (Date, Map, Uint8Array, class instance),
 *   or nesting deeper than {@link MAX_CANONICALIZE_DEPTH} (which includes cycles).
 */
export function canonicalize(value: unknown): string {
  return serializeValue(value, 0)
}

/**
 * UTF-8 bytes of {@link canonicalize}: the exact preimage of `content_hash` and every other JCS hash.
 *
 * @throws ProtocolError `not_canonicalizable`, as {@link canonicalize}.
 */
export function canonicalBytes(value: unknown): Uint8Array {
  return encoder.encode(canonicalize(value))
}

function serializeValue(value: unknown, depth: number): string {
  switch (typeof value) {
    case 'string':
      return serializeString(value)
    case 'number':
      return serializeNumber(value)
    case 'boolean':
      return value ? 'true' : 'false'
    case 'object': {
      if (value === null) return 'null'
      if (depth >= MAX_CANONICALIZE_DEPTH) {
        throw refuse(`nesting deeper than ${MAX_CANONICALIZE_DEPTH} levels (or a cycle)`, 'too_deep')
      }
      if (Array.isArray(value)) return serializeArray(value, depth + 1)
      const proto = Object.getPrototypeOf(value)
      if (proto !== Object.prototype && proto !== null) {
        throw refuse('only plain objects and arrays can be canonicalized', 'not_plain_object')
      }
      return serializeObject(value as Record<string, unknown>, depth + 1)
    }
    default:
      throw refuse(`a value of type ${typeof value} has no JSON form`, 'unsupported_type')
  }
}

function serializeNumber(value: number): string {
  if (!Number.isFinite(value)) throw refuse('non-finite numbers have no JSON form', 'non_finite_number')
  // ECMAScript Number::toString is exactly RFC 8785 §3.2.2.3 (String(-0) is "0").
  return String(value)
}

function serializeString(value: string): string {
  if (!(value as WellFormedString).isWellFormed()) throw refuse('string contains a lone surrogate', 'lone_surrogate')
  // Most strings need no escaping; quoting them directly is markedly faster than JSON.stringify.
  // Otherwise JSON.stringify on a well-formed string emits exactly the RFC 8785 §3.2.2.2 escapes:
  // \b \t \n \f \r \" \\, other C0 controls as lowercase \u00xx, everything else verbatim.
  return NEEDS_ESCAPE.test(value) ? JSON.stringify(value) : `"${value}"`
}

function serializeArray(array: readonly unknown[], depth: number): string {
  let out = '['
  for (let i = 0; i < array.length; i++) {
    const element = array[i]
    if (element === undefined) throw refuse(`array element ${i} is undefined`, 'undefined_value')
    if (i > 0) out += ','
    out += serializeValue(element, depth)
  }
  return out + ']'
}

function serializeObject(object: Record<string, unknown>, depth: number): string {
  // Default sort compares UTF-16 code units, which is the RFC 8785 §3.2.3 order.
  const keys = Object.keys(object).sort()
  let out = '{'
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string
    const member = object[key]
    if (member === undefined) throw refuse(`member "${key}" is undefined`, 'undefined_value')
    if (i > 0) out += ','
    out += serializeString(key)
    out += ':'
    out += serializeValue(member, depth)
  }
  return out + '}'
}

function refuse(message: string, reason: string): ProtocolError {
  return new ProtocolError('not_canonicalizable', `cannot canonicalize: ${message}`, { details: { reason } })
}

// String.prototype.isWellFormed is ES2024 (always present in Node 24); the repo's lib is ES2023.
type WellFormedString = string & { isWellFormed(): boolean }

// control characters in this pattern are deliberate: C0 controls are exactly what JSON must escape
const NEEDS_ESCAPE = /["\\\u0000-\u001f]/
