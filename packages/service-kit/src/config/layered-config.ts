/**
 * A configuration in layers: built-in defaults < a file < the environment, checked against one closed TypeBox
 * schema and deep-frozen.
 *
 * `read` gives the file with the environment laid over it (env-overlay.ts names and types the variables);
 * `resolve` lays that, or any in-memory input an embedder or test builds, over the defaults and validates the
 * result. Objects merge key by key; a list or a scalar of a higher layer replaces the lower one whole. Every
 * refusal is a `ConfigError` of one line naming the key (or the variable, or the file): a key the schema does not
 * have, a value of the wrong type or out of bounds, an unreadable or unparsable file. The server adds its
 * cross-key refusals in `finish`, before the value is frozen.
 */
import { readFileSync } from 'node:fs'
import type { Static, TObject } from 'typebox'
import { Compile } from 'typebox/compile'
import { ConfigError } from './config-error.js'
import { deepFreeze } from './deep-freeze.js'
import { type EnvOverlayOptions, readEnvOverlay } from './env-overlay.js'
import type { EnvSource } from './env-schema.js'

/** The file layer's format: its name in refusals (`TOML`) and its parser (which throws on bad text). */
export interface ConfigFileFormat {
  readonly name: string
  readonly parse: (text: string) => unknown
}

export interface LayeredConfigDefinition<S extends TObject> {
  /** The whole configuration; every object in it closed (`additionalProperties: false`), so a typo is refused. */
  readonly schema: S
  /** The lowest layer (a copy is taken on each `resolve`). A key without a default must come from a layer above. */
  readonly defaults: object
  readonly env: EnvOverlayOptions
  /** Needed only when `read` is given a path. */
  readonly file?: ConfigFileFormat
  /**
   * Runs on the merged layers before the schema check: refusing a required key the defaults cannot supply in
   * the server's own words, filling defaults inside list entries. It may change `merged` and throw `ConfigError`.
   */
  readonly prepare?: (merged: Record<string, unknown>) => void
}

export interface LayeredConfigSources {
  /** The configuration file; none when undefined. */
  readonly path?: string | undefined
  readonly env: EnvSource
}

export interface LayeredConfig<S extends TObject> {
  /** The file at `path` (if any) with the environment laid over it; neither defaulted nor validated. */
  read(sources: LayeredConfigSources): Record<string, unknown>
  /**
   * `input` laid over the defaults, prepared, checked against the schema, handed to `finish` while still writable
   * (derived values, cross-key refusals), then deep-frozen. `input`'s lists become part of the result.
   */
  resolve(input: object, finish?: (config: Static<S>) => void): Static<S>
}

export function layeredConfig<S extends TObject>(definition: LayeredConfigDefinition<S>): LayeredConfig<S> {
  const validator = Compile(definition.schema)
  return {
    read({ path, env }) {
      const file = path === undefined ? {} : readConfigFile(path, definition.file)
      return deepMerge(file, readEnvOverlay(definition.schema, env, definition.env))
    },
    resolve(input, finish) {
      const defaults = structuredClone(definition.defaults) as Record<string, unknown>
      const merged = deepMerge(defaults, input as Record<string, unknown>)
      definition.prepare?.(merged)
      if (!validator.Check(merged)) {
        const [first] = validator.Errors(merged)
        throw new ConfigError(describeSchemaError(first, merged))
      }
      finish?.(merged)
      return deepFreeze(merged)
    },
  }
}

function readConfigFile(path: string, format: ConfigFileFormat | undefined): Record<string, unknown> {
  if (format === undefined) throw new TypeError('layeredConfig: a file path was given, but no file format')
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (cause) {
    throw new ConfigError(`config file ${path}: cannot be read (${(cause as NodeJS.ErrnoException).code ?? 'error'})`)
  }
  let parsed: unknown
  try {
    parsed = format.parse(text)
  } catch (cause) {
    throw new ConfigError(`config file ${path}: invalid ${format.name} (${firstLine(cause)})`)
  }
  if (!isPlainObject(parsed)) throw new ConfigError(`config file ${path}: invalid ${format.name} (not a table)`)
  return parsed
}

/** Objects merge key by key; arrays and scalars from `over` replace. Returns `base`, mutated. */
function deepMerge(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  for (const [key, value] of Object.entries(over)) {
    if (value === undefined) continue
    const current = base[key]
    if (isPlainObject(value) && isPlainObject(current)) base[key] = deepMerge(current, value)
    else base[key] = isPlainObject(value) ? deepMerge({}, value) : value
  }
  return base
}

/** A table of a configuration layer (TOML, JSON, an in-memory input): an object that is not a list or a date. */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && !(value instanceof Date)
}

interface SchemaError {
  readonly keyword?: string
  readonly instancePath: string
  readonly message: string
  readonly params?: Record<string, unknown>
}

/** The first schema error as one line: the dotted key, what is wrong, and the scalar value given. */
function describeSchemaError(error: SchemaError | undefined, value: unknown): string {
  if (!error) return 'configuration is invalid'
  const key = error.instancePath.replace(/^\//, '').replaceAll('/', '.')
  // A closed object reports an unknown member as the `false` schema at the member's own path.
  if (error.keyword === 'boolean') return `${key}: no such configuration key`
  const extra = error.params?.additionalProperties
  if (Array.isArray(extra) && extra.length > 0) {
    const where = key === '' ? '' : `${key}.`
    return `${where}${String(extra[0])}: no such configuration key`
  }
  const shown = key === '' ? 'configuration' : key
  let actual: unknown = value
  for (const part of key.split('.').filter((p) => p !== '')) actual = (actual as Record<string, unknown>)?.[part]
  return `${shown}: ${error.message}${actual === undefined || typeof actual === 'object' ? '' : ` (got ${JSON.stringify(actual)})`}`
}

function firstLine(error: unknown): string {
  return String((error as Error)?.message ?? error).split('\n')[0] ?? 'parse error'
}
