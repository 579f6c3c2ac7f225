/**
 * The environment layer of a layered configuration: one variable per key, named
 * `<prefix><SECTION>__<FIELD>[__<SUBFIELD>]` (the prefix exactly, the rest in any case; `__` between the parts of
 * the key's path), read as the type the schema gives that key.
 *
 * - boolean: `true`, `1`, `yes` or `false`, `0`, `no`, any case;
 * - integer and number: what `Number` reads from the trimmed text (an integer key refuses a fraction);
 * - list: a JSON array, or for the keys in `commaLists` also comma-separated entries; a list of tables
 *   (`[[section.entries]]`) may also be written as `<NAME>_JSON`;
 * - string: the text as given.
 *
 * An empty variable counts as absent (compose files pass empty values through). A variable under the prefix that
 * names no key, a whole section or a value of the wrong type is refused in one line naming the variable.
 */
import type { TSchema } from 'typebox'
import { ConfigError } from './config-error.js'
import type { EnvSource } from './env-schema.js'
import { listEntries } from './list-entries.js'

export interface EnvOverlayOptions {
  /** Every variable whose name starts with it names a key (`ACDP_REGISTRY_`). */
  readonly prefix: string
  /** Variables under the prefix that name no key (the one naming the configuration file). */
  readonly ignore?: readonly string[]
  /** Dotted keys of lists that also take comma-separated entries; every other list takes a JSON array only. */
  readonly commaLists?: readonly string[]
}

/** The keys `env` sets under `options.prefix`, nested by their path, each coerced to its type in `schema`. */
export function readEnvOverlay(schema: TSchema, env: EnvSource, options: EnvOverlayOptions): Record<string, unknown> {
  const ignore = new Set(options.ignore ?? [])
  const commaLists = new Set(options.commaLists ?? [])
  const out: Record<string, unknown> = {}
  for (const [name, raw] of Object.entries(env)) {
    if (!name.startsWith(options.prefix) || ignore.has(name)) continue
    if (raw === undefined || raw === '') continue
    const path = name.slice(options.prefix.length).toLowerCase().split('__')
    let node = schemaAt(schema, path)
    let asJson = false
    if (node === undefined && path.at(-1)?.endsWith('_json')) {
      path[path.length - 1] = (path.at(-1) as string).slice(0, -'_json'.length)
      node = schemaAt(schema, path)
      asJson = true
    }
    if (node === undefined || path.some((part) => part === '')) {
      throw new ConfigError(`${name}: no such configuration key`)
    }
    const key = path.join('.')
    setPath(out, path, coerce(name, key, raw, node, asJson || !commaLists.has(key)))
  }
  return out
}

/** The schema of the key at `path`, or undefined when the schema has no such key. */
function schemaAt(schema: TSchema, path: readonly string[]): TSchema | undefined {
  let node: TSchema | undefined = schema
  for (const part of path) {
    const properties: Record<string, TSchema> | undefined = (
      node as { properties?: Record<string, TSchema> } | undefined
    )?.properties
    if (!properties || !Object.hasOwn(properties, part)) return undefined
    node = properties[part]
  }
  return node
}

/** `raw` as the type of `schema`; a list is read as JSON when `jsonOnly` or when it starts with `[`. */
function coerce(name: string, key: string, raw: string, schema: TSchema, jsonOnly: boolean): unknown {
  const type = (schema as { type?: string }).type
  const bad = (what: string) => new ConfigError(`${name}: expected ${what} for ${key}, got "${raw}"`)
  if (type === 'boolean') {
    if (/^(true|1|yes)$/i.test(raw)) return true
    if (/^(false|0|no)$/i.test(raw)) return false
    throw bad('true or false')
  }
  if (type === 'integer' || type === 'number') {
    const n = Number(raw.trim())
    if (raw.trim() === '' || !Number.isFinite(n) || (type === 'integer' && !Number.isInteger(n))) throw bad(type)
    return n
  }
  if (type === 'array') {
    const trimmed = raw.trim()
    if (jsonOnly || trimmed.startsWith('[')) {
      try {
        const parsed: unknown = JSON.parse(trimmed)
        if (Array.isArray(parsed)) return parsed
      } catch {
        // reported below
      }
      throw bad('a JSON array')
    }
    return listEntries(trimmed, ',')
  }
  if (type === 'object') throw new ConfigError(`${name}: ${key} is a section; set its fields individually`)
  return raw
}

function setPath(target: Record<string, unknown>, path: readonly string[], value: unknown): void {
  let node = target
  for (const part of path.slice(0, -1)) {
    if (typeof node[part] !== 'object' || node[part] === null) node[part] = {}
    node = node[part] as Record<string, unknown>
  }
  node[path.at(-1) as string] = value
}
