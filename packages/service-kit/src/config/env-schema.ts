/**
 * Environment variables described by a TypeBox schema and read in one pass.
 *
 * A server describes each variable it reads once: its name (the object key), its kind (string, integer, number,
 * boolean, enum, url, duration, list), its default, its bounds and a description. `parseEnv` reads an environment
 * object against that schema and returns the typed values together with one problem per bad variable, so a server
 * can add its own cross-field refusals and report everything in a single run; `loadEnv` throws instead.
 *
 * Rules every kind shares: a value is trimmed, and an unset or blank variable takes the default (compose files and
 * shells pass empty values through, so empty means "not set"). A bad value also yields the default in `values`, so
 * the server's cross-field checks still run on a complete object. Messages are one line, name the variable and,
 * unless the variable is marked secret, quote what was given.
 */
import { type Static, type TArray, type TBoolean, type TEnum, type TInteger, type TNumber, type TObject } from 'typebox'
import { type TOptional, type TProperties, type TSchema, type TString, Type } from 'typebox'
import { ConfigError } from './config-error.js'
import { listEntries } from './list-entries.js'

/** The annotation key that marks a schema as an environment variable of one kind. */
const KIND = 'x-env-kind'

export type EnvKind = 'string' | 'integer' | 'number' | 'boolean' | 'enum' | 'url' | 'duration' | 'list'

/** A duration's unit: the unit of its bounds and of the parsed value, and what a bare integer means. */
export type DurationUnit = 'ms' | 's'

interface Common {
  readonly description: string
  /** Never quote the value in a refusal (keys, tokens, URLs that may carry credentials). */
  readonly secret?: boolean
}
interface Bounds {
  readonly minimum: number
  readonly maximum: number
}

const UNIT_MS: Readonly<Record<string, number>> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 }

function annotate<T extends TSchema>(schema: T, kind: EnvKind, common: Common): T {
  return Object.assign(schema, { [KIND]: kind, ...(common.secret === true ? { 'x-env-secret': true } : {}) })
}

function maybeOptional<T extends TSchema>(schema: T, hasDefault: boolean): T | TOptional<T> {
  return hasDefault ? schema : Type.Optional(schema)
}

/**
 * String: trimmed, '' when unset unless a default is given. Any text is accepted; what it must look like is the
 * server's rule.
 */
function string(options: Common & { readonly default?: string }): TString {
  return annotate(Type.String({ description: options.description, default: options.default ?? '' }), 'string', options)
}

/** Integer in [minimum, maximum]: optional sign and decimal digits only (no exponent, no fraction). */
function integer(options: Common & Bounds & { readonly default: number }): TInteger
function integer(options: Common & Bounds): TOptional<TInteger>
function integer(options: Common & Bounds & { readonly default?: number }): TInteger | TOptional<TInteger> {
  const { description, minimum, maximum } = options
  const schema = Type.Integer({ description, minimum, maximum, ...defaultOf(options.default) })
  return maybeOptional(annotate(schema, 'integer', options), options.default !== undefined)
}

/** Decimal number in [minimum, maximum] (`0.05`, `.5`, `3`); a sign only when the minimum is negative. */
function number(options: Common & Bounds & { readonly default: number }): TNumber
function number(options: Common & Bounds): TOptional<TNumber>
function number(options: Common & Bounds & { readonly default?: number }): TNumber | TOptional<TNumber> {
  const { description, minimum, maximum } = options
  const schema = Type.Number({ description, minimum, maximum, ...defaultOf(options.default) })
  return maybeOptional(annotate(schema, 'number', options), options.default !== undefined)
}

/**
 * Boolean: `true`/`1` or `false`/`0`, any case. Without a default the value is `undefined` when unset, for defaults
 * that depend on other variables (NODE_ENV), which the server then applies.
 */
function boolean(options: Common & { readonly default: boolean }): TBoolean
function boolean(options: Common): TOptional<TBoolean>
function boolean(options: Common & { readonly default?: boolean }): TBoolean | TOptional<TBoolean> {
  const schema = Type.Boolean({ description: options.description, ...defaultOf(options.default) })
  return maybeOptional(annotate(schema, 'boolean', options), options.default !== undefined)
}

/** One of a closed set of strings, compared exactly (case matters: `EdDSA`). */
function enumOf<const V extends string[]>(
  values: readonly [...V],
  options: Common & { readonly default: V[number] },
): TEnum<V> {
  return annotate(Type.Enum(values, { description: options.description, default: options.default }), 'enum', options)
}

/** An absolute URL whose scheme is one of `protocols` (`'https:'` form); '' when unset. */
function url(options: Common & { readonly protocols: readonly string[]; readonly default?: string }): TString {
  const schema = Type.String({
    description: options.description,
    default: options.default ?? '',
    'x-env-protocols': [...options.protocols],
  })
  return annotate(schema, 'url', options)
}

/**
 * Duration: an integer in `unit`, or an integer with a unit suffix (`250ms`, `30s`, `5m`, `1h`), converted to
 * `unit`; bounds are in `unit`. A value that does not convert to a whole number of `unit` is refused.
 */
function duration(options: Common & Bounds & { readonly unit: DurationUnit; readonly default: number }): TInteger {
  const { description, minimum, maximum, unit } = options
  const schema = Type.Integer({ description, minimum, maximum, default: options.default, 'x-env-unit': unit })
  return annotate(schema, 'duration', options)
}

/**
 * List: entries separated by `separator` (default `,`), each trimmed, empty entries dropped; `[]` when unset.
 * `unique` refuses a list that names one entry twice; `values` then holds its entries once each.
 */
function list(options: Common & { readonly separator?: string; readonly unique?: boolean }): TArray<TString> {
  const schema = Type.Array(Type.String(), {
    description: options.description,
    default: [],
    'x-env-separator': options.separator ?? ',',
    'x-env-unique': options.unique === true,
  })
  return annotate(schema, 'list', options)
}

function defaultOf<T>(value: T | undefined): { default?: T } {
  return value === undefined ? {} : { default: value }
}

/** The schema builders, one per kind. Put them in a `Type.Object({ NAME: Env.kind(...) })`. */
export const Env = { string, integer, number, boolean, enum: enumOf, url, duration, list }

/** A bad variable: its name and the one-line reason (which names it). */
export interface EnvProblem {
  readonly variable: string
  readonly message: string
}

export interface EnvParse<T> {
  /**
   * Every variable of the schema: the value given, else its default (also for a refused value, except a `unique`
   * list naming an entry twice: its entries once each).
   */
  readonly values: T
  /** One problem per refused variable, in schema order. */
  readonly problems: readonly EnvProblem[]
  /** The variables that were set to a non-blank value (whether accepted or refused). */
  readonly given: ReadonlySet<string>
}

/** The environment object read: `process.env` or a test's own. */
export type EnvSource = Readonly<Record<string, string | undefined>>

/** A variable's documentation: what a configuration page lists for it. */
export interface EnvVariableDescription {
  readonly name: string
  readonly kind: EnvKind
  readonly description: string
  /** The default as text ('' for none or empty). */
  readonly default: string
}

/** Reads `env` against `schema`. Never throws for a bad value; throws only for a schema not built with `Env`. */
export function parseEnv<S extends TObject<TProperties>>(schema: S, env: EnvSource): EnvParse<Static<S>> {
  const values: Record<string, unknown> = {}
  const problems: EnvProblem[] = []
  const given = new Set<string>()
  for (const [name, variable] of Object.entries(schema.properties)) {
    const kind = kindOf(name, variable)
    const fallback = (variable as { default?: unknown }).default
    const raw = env[name]?.trim() ?? ''
    if (raw === '') {
      values[name] = Array.isArray(fallback) ? [...(fallback as unknown[])] : fallback
      continue
    }
    given.add(name)
    const result = readValue(name, kind, raw, variable)
    if (result instanceof Refused) {
      problems.push({ variable: name, message: result.message })
      values[name] = result.standIn ?? (Array.isArray(fallback) ? [...(fallback as unknown[])] : fallback)
    } else {
      values[name] = result
    }
  }
  return { values: values as Static<S>, problems, given }
}

/** Reads `env` against `schema` and returns the values, or throws one {@link ConfigError} listing every bad variable. */
export function loadEnv<S extends TObject<TProperties>>(schema: S, env: EnvSource): Static<S> {
  const { values, problems } = parseEnv(schema, env)
  if (problems.length > 0) throw new ConfigError(problems.map((p) => p.message))
  return values
}

/** Every variable of `schema`, in order, for documentation and the test that keeps the docs true to it. */
export function describeEnv(schema: TObject<TProperties>): EnvVariableDescription[] {
  return Object.entries(schema.properties).map(([name, variable]) => {
    const fallback = (variable as { default?: unknown }).default
    return {
      name,
      kind: kindOf(name, variable),
      description: String((variable as { description?: unknown }).description ?? ''),
      default: fallback === undefined ? '' : Array.isArray(fallback) ? fallback.join(',') : String(fallback),
    }
  })
}

function kindOf(name: string, variable: TSchema): EnvKind {
  const kind = (variable as Record<string, unknown>)[KIND]
  if (typeof kind !== 'string') throw new TypeError(`${name}: not an Env schema (build it with Env.${'<kind>'}(…))`)
  return kind as EnvKind
}

/** A refused value: the one-line reason. */
class Refused {
  constructor(
    readonly message: string,
    /** What `values` holds instead of the default, when the value's intent is clear despite the refusal. */
    readonly standIn?: unknown,
  ) {}
}

function readValue(name: string, kind: EnvKind, raw: string, variable: TSchema): unknown {
  const v = variable as Record<string, unknown>
  const secret = v['x-env-secret'] === true
  const got = secret ? '' : `, got "${raw}"`
  switch (kind) {
    case 'string':
      return raw
    case 'boolean': {
      const lower = raw.toLowerCase()
      if (lower === 'true' || lower === '1') return true
      if (lower === 'false' || lower === '0') return false
      return new Refused(`${name} must be true or false${got}`)
    }
    case 'integer': {
      if (!/^-?\d+$/.test(raw) || !Number.isSafeInteger(Number(raw))) {
        return new Refused(`${name} must be an integer${got}`)
      }
      return inBounds(name, Number(raw), v, secret)
    }
    case 'number': {
      const minimum = v['minimum'] as number
      const maximum = v['maximum'] as number
      const signed = minimum < 0 ? /^-?\d*\.?\d+$/ : /^\d*\.?\d+$/
      const n = Number(raw)
      // One message for both: "a number between" says what is wanted whichever way the value missed.
      if (!signed.test(raw) || n < minimum || n > maximum) {
        return new Refused(`${name} must be a number between ${minimum} and ${maximum}${got}`)
      }
      return n
    }
    case 'enum': {
      const allowed = v['enum'] as string[]
      if (allowed.includes(raw)) return raw
      return new Refused(`${name} must be ${choices(allowed)}${got}`)
    }
    case 'url': {
      const protocols = v['x-env-protocols'] as string[]
      const wanted = `a URL (${protocols.map((p) => `${p}//`).join(' or ')})`
      let parsed: URL | undefined
      try {
        parsed = new URL(raw)
      } catch {
        parsed = undefined
      }
      if (parsed === undefined || !protocols.includes(parsed.protocol)) {
        return new Refused(`${name} must be ${wanted}${got}`)
      }
      return raw
    }
    case 'duration': {
      const unit = v['x-env-unit'] as DurationUnit
      const match = /^(-?\d+)(ms|s|m|h)?$/.exec(raw)
      const amount = Number(match?.[1])
      const ms = amount * (UNIT_MS[match?.[2] ?? unit] as number)
      const value = ms / (UNIT_MS[unit] as number)
      if (match === null || !Number.isSafeInteger(amount) || !Number.isSafeInteger(value)) {
        return new Refused(
          `${name} must be a duration: an integer of ${unit}, or with a unit (ms, s, m, h) that is a whole number of ${unit}${got}`,
        )
      }
      return inBounds(name, value, v, secret, ` ${unit}`)
    }
    case 'list': {
      const entries = listEntries(raw, v['x-env-separator'] as string)
      if (v['x-env-unique'] === true && new Set(entries).size !== entries.length) {
        // The entries once each stand in: the server's own checks then judge what was meant, not an empty list.
        return new Refused(`${name} lists the same entry twice`, [...new Set(entries)])
      }
      return entries
    }
  }
}

function inBounds(name: string, n: number, v: Record<string, unknown>, secret: boolean, unit = ''): number | Refused {
  const minimum = v['minimum'] as number
  const maximum = v['maximum'] as number
  if (n < minimum || n > maximum) {
    return new Refused(`${name} must be between ${minimum} and ${maximum}${unit}${secret ? '' : `, got ${n}`}`)
  }
  return n
}

/** `a or b`, `a, b or c`; a longer set as `one of a, b, c, d`. */
function choices(values: readonly string[]): string {
  if (values.length > 3) return `one of ${values.join(', ')}`
  return values.length === 1 ? (values[0] as string) : `${values.slice(0, -1).join(', ')} or ${values.at(-1)}`
}
