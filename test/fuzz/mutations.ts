/**
 * The fuzzer's mutations, as a fast-check arbitrary of plans applied to seeds. A plan is plain data (numbers
 * and choices), so a failing request is reproduced from the run's seed and its index alone.
 *
 * Layers, applied in order: structural edits of the JSON value (wrong types, huge numbers, deep nesting,
 * unknown and missing members), re-signing (most of the time, so the edit reaches validation rather than the
 * signature check), text edits (duplicate keys, number literals JSON.stringify cannot write, nesting past the
 * depth limits), byte edits (bit flips, truncation, invalid UTF-8), HMAC re-signing of the final bytes, then
 * header, path and method edits.
 */
import fc from 'fast-check'
import type { WireRequest } from './raw-http.js'
import type { FuzzSeed } from './seed.js'

const deep = (depth: number, leaf: unknown): unknown => {
  let value = leaf
  for (let i = 0; i < depth; i++) value = [value]
  return value
}

/** Values swapped in for any member: wrong types, edge numbers, hostile strings, deep structures. */
const HOSTILE_VALUES: unknown[] = [
  null,
  true,
  0,
  -1,
  -0,
  0.5,
  1e308,
  -1e308,
  2 ** 53 + 2,
  Number.MAX_SAFE_INTEGER,
  '',
  ' ',
  'x'.repeat(70_000),
  '\u0000',
  '\ud800',
  '\uffff',
  'é🙂',
  '../../etc/passwd',
  '%00%ff',
  'acdp://registry.example.com/00000000-0000-4000-8000-000000000000',
  'did:web:127.0.0.1%3A1',
  'did:key:z6Mk',
  '__proto__',
  '<script>alert(1)</script>',
  '1970-01-01T00:00:00.000Z',
  '9999-12-31T23:59:59.999Z',
  [],
  {},
  [null],
  { __proto__: { polluted: true } },
  { constructor: { prototype: { polluted: true } } },
  deep(40, 1),
  Array.from({ length: 2000 }, (_, i) => i),
]

/** Number and literal spellings JSON.stringify never produces. */
const HOSTILE_LITERALS = [
  '1e999999',
  '-1e999999',
  '123456789012345678901234567890123456789',
  '0.0000000000000000000000000000001e-400',
  '-0',
  '1.0',
  '01',
  'NaN',
  'Infinity',
  '"\\ud800"',
  '"\\u0000"',
  '"\\uDFFF\\uD800"',
  '[',
  '{"a":',
  'nul',
  '""',
]

const INVALID_UTF8 = [
  [0xff],
  [0xc0, 0x80],
  [0xed, 0xa0, 0x80],
  [0xf4, 0x90, 0x80, 0x80],
  [0xe2, 0x82],
  [0xfe, 0xff],
  [0x00],
]

const CONTENT_TYPES = [
  'text/plain',
  'application/xml',
  'multipart/form-data; boundary=x',
  'application/x-www-form-urlencoded',
  'application/json; charset=utf-16',
  'application/json; charset=latin1',
  'application/acdp+json; charset=utf-8',
  'APPLICATION/JSON',
  'application/json;;;',
  'application/',
  '/',
  '',
  'application/json, text/plain',
  `application/${'x'.repeat(5000)}+json`,
  'application/vnd.evil+json',
]

const HEADER_NAMES = [
  'authorization',
  'x-tenant-id',
  'x-forwarded-for',
  'x-forwarded-proto',
  'x-forwarded-host',
  'x-real-ip',
  'idempotency-key',
  'x-run-id',
  'x-acdp-signature',
  'x-acdp-signature-timestamped',
  'x-acdp-timestamp',
  'x-acdp-event-id',
  'last-event-id',
  'if-none-match',
  'range',
  'accept',
  'accept-encoding',
  'cookie',
  'origin',
  'x-request-id',
  'expect',
  'host',
]

const HEADER_VALUES: Array<string | Buffer> = [
  '',
  ' ',
  'Bearer ',
  'Bearer x',
  `Bearer ${'a'.repeat(4096)}`,
  'Basic Zm9vOmJhcg==',
  'default',
  '../../',
  '127.0.0.1, 10.0.0.1, ::1, garbage',
  'sha256=',
  `sha256=${'0'.repeat(64)}`,
  't=1,v1=00',
  '-1',
  '99999999999999999999999',
  '1e309',
  'NaN',
  '*',
  'bytes=0-0,1-1,2-2',
  'gzip, deflate, br, zstd, *;q=0',
  '100-continue',
  'a'.repeat(9000),
  Buffer.from([0xff, 0xfe, 0x80]),
  Buffer.from('é🙂', 'utf8'),
  Buffer.from([0x7f, 0x01]),
  '"etag", W/"x"',
  '__proto__',
]

const PATH_SUFFIXES = [
  '/..',
  '/%2e%2e/%2e%2e',
  '/%00',
  '/%ff',
  '/%',
  '/%zz',
  '//',
  '/.',
  `/${'a'.repeat(5000)}`,
  `/${'%41'.repeat(3000)}`,
  '/é',
  '/%C3%A9',
  '/%25252e',
  '/body',
  '/body/body',
  '/current',
  '/events',
  '/lineage',
  '/;x=1',
  '?',
  '#x',
  '/\\..\\',
]

const QUERY_VALUES = [
  '',
  '-1',
  '0',
  '1e309',
  '99999999999999999999',
  '1.5',
  'NaN',
  'true',
  '%00',
  '%ff',
  '%',
  `${'x'.repeat(5000)}`,
  '__proto__',
  'a&a=b',
  '[]',
  '{}',
  '%E2%80%AE',
]

const QUERY_EXTRAS = [
  'limit=1&limit=2',
  '__proto__[polluted]=1',
  'constructor[prototype][polluted]=1',
  'cursor=AAAA',
  'cursor=%00',
  'q=%ff',
  'unknown=1',
  'limit=1e3',
  'offset=-5',
  'page_size=0',
  'runId=',
  'eventType=%0d%0a',
]

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS', 'TRACE', 'FOO', 'get', 'PROPFIND']

const TARGET_FORMS = ['*', 'http://127.0.0.1/healthz', '/', '', '//healthz', '/healthz?x=1#y', '/\u0000']

/** Plain-data mutation plan. */
export interface MutationPlan {
  seed: number
  structural: Array<{ kind: number; at: number; value: number }>
  resealValue: boolean
  text: { kind: number; value: number; at: number } | null
  bytes: Array<{ kind: number; at: number; value: number }>
  resealBytes: boolean
  headers: Array<{ kind: number; name: number; value: number }>
  path: { kind: number; value: number; at: number } | null
  method: number | null
}

const small = (max: number) => fc.integer({ min: 0, max })
const noEdits = <T>(): fc.Arbitrary<T[]> => fc.constant(null).map(() => [] as T[])

export const mutationPlan: fc.Arbitrary<MutationPlan> = fc.record({
  seed: fc.nat(),
  structural: fc.array(fc.record({ kind: small(5), at: fc.nat(), value: fc.nat() }), { maxLength: 3 }),
  resealValue: fc.integer({ min: 0, max: 3 }).map((n) => n !== 0),
  text: fc.option(fc.record({ kind: small(4), value: fc.nat(), at: fc.nat() }), { freq: 3 }),
  bytes: fc.oneof(
    { weight: 3, arbitrary: noEdits<{ kind: number; at: number; value: number }>() },
    { weight: 1, arbitrary: fc.array(fc.record({ kind: small(4), at: fc.nat(), value: fc.nat() }), { maxLength: 3 }) },
  ),
  resealBytes: fc.integer({ min: 0, max: 4 }).map((n) => n !== 0),
  headers: fc.oneof(
    { weight: 2, arbitrary: noEdits<{ kind: number; name: number; value: number }>() },
    {
      weight: 1,
      arbitrary: fc.array(fc.record({ kind: small(9), name: fc.nat(), value: fc.nat() }), { maxLength: 3 }),
    },
  ),
  path: fc.option(fc.record({ kind: small(5), value: fc.nat(), at: fc.nat() }), { freq: 4 }),
  method: fc.option(fc.nat(), { freq: 12 }),
})

const pick = <T>(list: readonly T[], n: number): T => list[n % list.length] as T

/** Every member path of a JSON value (the root is []). */
function pathsOf(value: unknown, prefix: Array<string | number> = [], out: Array<Array<string | number>> = []) {
  out.push(prefix)
  if (out.length > 400) return out
  if (Array.isArray(value)) value.forEach((v, i) => pathsOf(v, [...prefix, i], out))
  else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) pathsOf(v, [...prefix, k], out)
  }
  return out
}

function editAt(root: unknown, path: Array<string | number>, edit: (parent: unknown, key: string | number) => void) {
  if (path.length === 0) return
  let node = root as Record<string | number, unknown>
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>
  edit(node, path.at(-1) as string | number)
}

function mutateValue(value: unknown, edits: MutationPlan['structural']): unknown {
  let root = structuredClone(value)
  for (const edit of edits) {
    const paths = pathsOf(root)
    const path = pick(paths, edit.at)
    const hostile = structuredClone(pick(HOSTILE_VALUES, edit.value))
    switch (edit.kind) {
      case 0: // replace with a hostile value (the root too)
        if (path.length === 0) root = hostile
        else editAt(root, path, (p, k) => ((p as Record<string | number, unknown>)[k] = hostile))
        break
      case 1: // delete a member / element
        editAt(root, path, (p, k) => {
          if (Array.isArray(p)) p.splice(Number(k), 1)
          else delete (p as Record<string | number, unknown>)[k]
        })
        break
      case 2: // add an unknown member to the nearest object
        if (root !== null && typeof root === 'object' && !Array.isArray(root)) {
          ;(root as Record<string, unknown>)[`fuzz_${edit.value % 7}`] = hostile
        }
        break
      case 3: // wrap in nesting
        editAt(root, path, (p, k) => {
          const node = p as Record<string | number, unknown>
          node[k] = deep(1 + (edit.value % 70), node[k])
        })
        break
      case 4: // stringify a member (right value, wrong type)
        editAt(root, path, (p, k) => {
          const node = p as Record<string | number, unknown>
          node[k] = JSON.stringify(node[k]) ?? 'undefined'
        })
        break
      default: // numbers become their string form and strings their length
        editAt(root, path, (p, k) => {
          const node = p as Record<string | number, unknown>
          const v = node[k]
          node[k] = typeof v === 'string' ? v.length : typeof v === 'number' ? String(v) : v
        })
    }
  }
  return root
}

function mutateText(text: string, edit: NonNullable<MutationPlan['text']>): string {
  const isObject = text.startsWith('{') && text.length > 2
  const literal = pick(HOSTILE_LITERALS, edit.value)
  switch (edit.kind) {
    case 0: {
      // duplicate key: repeat the first member with a different value
      const key = /^\{("(?:[^"\\]|\\.)*")/.exec(text)?.[1]
      return key && isObject ? `{${key}:${literal},${text.slice(1)}` : text
    }
    case 1: {
      // nesting past any sane limit, as text (never built as a value)
      const depth = pick([65, 100, 1025, 20_000, 200_000], edit.value)
      const nest = `${'['.repeat(depth)}${']'.repeat(depth)}`
      return isObject ? `{"deep":${nest},${text.slice(1)}` : nest
    }
    case 2:
      // a literal in place of a member value
      return isObject ? `{"fuzz":${literal},${text.slice(1)}` : literal
    case 3: {
      // replace the n-th number literal
      let seen = 0
      const target = edit.at % 8
      return text.replace(/-?\d+(\.\d+)?([eE][+-]?\d+)?/g, (m) => (seen++ === target ? literal : m))
    }
    default:
      // whitespace and BOM games around the document
      return pick(['\ufeff', ' \t\n\r', '\u00a0', '\u2028'], edit.value) + text
  }
}

function mutateBytes(body: Buffer, edits: MutationPlan['bytes']): Buffer {
  let out = body
  for (const edit of edits) {
    const at = out.length === 0 ? 0 : edit.at % out.length
    switch (edit.kind) {
      case 0: {
        if (out.length === 0) break
        out = Buffer.from(out)
        out[at] = (out[at] as number) ^ (1 << (edit.value % 8))
        break
      }
      case 1:
        out = out.subarray(0, at)
        break
      case 2:
        out = Buffer.concat([out.subarray(0, at), Buffer.from(pick(INVALID_UTF8, edit.value)), out.subarray(at)])
        break
      case 3:
        out = Buffer.concat([out.subarray(0, at), out.subarray(at + 1 + (edit.value % 64))])
        break
      default:
        out = Buffer.concat([out, out.subarray(0, edit.value % 128)])
    }
  }
  return out
}

function setHeader(headers: Array<[string, Buffer | string]>, name: string, value: Buffer | string): void {
  const index = headers.findIndex(([n]) => n.toLowerCase() === name)
  if (index === -1) headers.push([name, value])
  else headers[index] = [name, value]
}

function mutateHeaders(
  headers: Array<[string, Buffer | string]>,
  bodyLength: number,
  edits: MutationPlan['headers'],
): void {
  for (const edit of edits) {
    switch (edit.kind) {
      case 0:
        setHeader(headers, 'content-type', pick(CONTENT_TYPES, edit.value))
        break
      case 1: {
        const index = headers.findIndex(([n]) => n === 'content-type')
        if (index !== -1) headers.splice(index, 1)
        break
      }
      case 2:
        setHeader(
          headers,
          'content-length',
          pick(
            [
              String(Math.max(0, bodyLength - 1)),
              '0',
              '-1',
              '1e3',
              'abc',
              '99999999999999999999',
              `${bodyLength}, ${bodyLength}`,
            ],
            edit.value,
          ),
        )
        break
      case 3:
        headers.push(['content-length', String(bodyLength + 1 + (edit.value % 3))])
        break
      case 4:
        headers.push([
          'transfer-encoding',
          pick(['chunked', 'gzip, chunked', 'identity', 'chunked, chunked'], edit.value),
        ])
        break
      case 5:
        headers.push([pick(HEADER_NAMES, edit.name), pick(HEADER_VALUES, edit.value)])
        break
      case 6:
        setHeader(headers, pick(HEADER_NAMES, edit.name), pick(HEADER_VALUES, edit.value))
        break
      case 7:
        for (let i = 0; i < 50 + (edit.value % 200); i++) headers.push([`x-fuzz-${i}`, 'v'])
        break
      case 8:
        headers.push([pick(['bad header', 'bad:name', 'é', '', 'x\u0000y'], edit.name), 'v'])
        break
      default:
        headers.splice(edit.name % Math.max(1, headers.length), 1)
    }
  }
}

function mutateTarget(path: string, edit: NonNullable<MutationPlan['path']>): Buffer {
  const [pathname = '', query] = path.split('?', 2) as [string, string | undefined]
  switch (edit.kind) {
    case 0:
      return Buffer.from(pathname + pick(PATH_SUFFIXES, edit.value) + (query === undefined ? '' : `?${query}`))
    case 1: {
      // replace the last path segment with hostile bytes
      const segments = pathname.split('/')
      const raw = pick(HEADER_VALUES, edit.value)
      const segment = typeof raw === 'string' ? encodeURIComponent(raw.slice(0, 3000)) : raw.toString('latin1')
      segments[segments.length - 1] = segment
      return Buffer.from(segments.join('/') + (query === undefined ? '' : `?${query}`), 'latin1')
    }
    case 2: {
      // hostile value for one query parameter (or a new one)
      const params = (query ?? '').split('&').filter((p) => p !== '')
      const value = pick(QUERY_VALUES, edit.value)
      if (params.length === 0) return Buffer.from(`${pathname}?limit=${value}`)
      const i = edit.at % params.length
      params[i] = `${(params[i] as string).split('=')[0]}=${value}`
      return Buffer.from(`${pathname}?${params.join('&')}`)
    }
    case 3:
      return Buffer.from(`${path}${query === undefined ? '?' : '&'}${pick(QUERY_EXTRAS, edit.value)}`)
    case 4:
      return Buffer.concat([Buffer.from(pathname), Buffer.from(pick(INVALID_UTF8, edit.value)), Buffer.from('x')])
    default:
      return Buffer.from(pick(TARGET_FORMS, edit.value), 'latin1')
  }
}

/** Applies `plan` to one of `seeds`: the request to put on the wire. */
export function buildMutatedRequest(seeds: readonly FuzzSeed[], plan: MutationPlan): WireRequest {
  const seed = pick(seeds, plan.seed)
  let body: Buffer = Buffer.alloc(0)
  if (seed.body !== undefined) {
    let value = plan.structural.length > 0 ? mutateValue(seed.body, plan.structural) : seed.body
    if (
      plan.structural.length > 0 &&
      plan.resealValue &&
      seed.sealValue &&
      value !== null &&
      typeof value === 'object' &&
      !Array.isArray(value)
    ) {
      try {
        value = seed.sealValue(value as Record<string, unknown>)
      } catch {
        // not signable (e.g. a lone surrogate cannot be canonicalized): sent with the stale signature
      }
    }
    let text = JSON.stringify(value) ?? 'null'
    if (plan.text) text = mutateText(text, plan.text)
    body = mutateBytes(Buffer.from(text, 'utf8'), plan.bytes)
  } else if (plan.text && plan.text.kind === 2) {
    // a body where none is expected
    body = Buffer.from(`{"fuzz":${pick(HOSTILE_LITERALS, plan.text.value)}}`)
  }
  const headers: Array<[string, Buffer | string]> = [['host', '127.0.0.1']]
  for (const [name, value] of Object.entries(seed.headers)) headers.push([name, value])
  if (body.length > 0 && !headers.some(([n]) => n === 'content-type'))
    headers.push(['content-type', 'application/json'])
  if (seed.sealBytes && plan.resealBytes) {
    for (const [name, value] of Object.entries(seed.sealBytes(body))) setHeader(headers, name, value)
  }
  if (body.length > 0 || seed.method === 'POST') headers.push(['content-length', String(body.length)])
  mutateHeaders(headers, body.length, plan.headers)
  headers.push(['connection', 'close'])
  return {
    method: plan.method === null ? seed.method : pick(METHODS, plan.method),
    target: plan.path ? mutateTarget(seed.path, plan.path) : Buffer.from(seed.path),
    headers,
    body,
  }
}

/** A valid request of `seed`, unmutated (the warm-up and the control run). */
export function buildSeedRequest(seed: FuzzSeed): WireRequest {
  return buildMutatedRequest([seed], {
    seed: 0,
    structural: [],
    resealValue: false,
    text: null,
    bytes: [],
    resealBytes: true,
    headers: [],
    path: null,
    method: null,
  })
}
