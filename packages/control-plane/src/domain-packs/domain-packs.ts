/**
 * Domain packs (product spec "Domain pack"): named bundles of context types, agent
 * templates and search vocabulary, registered once at boot from the `DOMAIN_PACKS` setting.
 *
 * Their one runtime effect is the ingest allowlist: when at least one pack is registered, an event whose
 * `context_type` is neither a base protocol type (RFC-ACDP-0002 §5, registries/context-types.md) nor declared by a
 * registered pack is refused. With no pack registered the gate is off and every type is accepted.
 *
 * Beyond the reference: packs load from JSON files as well as by built-in name, every pack is validated against a
 * closed schema at boot (an unknown member, a malformed type name or a type declared twice is a boot refusal, not
 * a silent surprise at ingest time), and base types are never gated (the reference's OLD release gated them).
 */
import { readFileSync } from 'node:fs'
import { resolve } from 'node:path'
import { type Static, Type } from 'typebox'
import { BUILT_IN_DOMAIN_PACKS } from './built-in.js'
import { typeBoxValue } from '../core/typebox-on-demand.js'

/**
 * Standard context types (registries/context-types.md "Standard types"), always accepted by the gate. The interim
 * `acdp:key-revocation` spelling (RFC-ACDP-0014 §10) is accepted with its standard form.
 */
export const BASE_CONTEXT_TYPES: ReadonlySet<string> = new Set([
  'data_snapshot',
  'analysis',
  'prediction',
  'alert',
  'key-revocation',
  'acdp:key-revocation',
])

/** A pack-declared type: a bare snake/kebab name (`earnings_report`) or the registry's `<namespace>:<type>` form. */
const CONTEXT_TYPE_PATTERN = '^(?:[a-z][a-z0-9_]*:)?[a-z][a-z0-9_-]{0,127}$'

export const DomainPackContextType = Type.Object(
  {
    contextType: Type.String({ pattern: CONTEXT_TYPE_PATTERN }),
    requiredFields: Type.Array(Type.String({ minLength: 1, maxLength: 128 }), { maxItems: 256, uniqueItems: true }),
    defaultVisibility: Type.Union([Type.Literal('public'), Type.Literal('restricted'), Type.Literal('private')]),
  },
  { additionalProperties: false },
)

export const DomainPackAgentTemplate = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 128 }),
    description: Type.String({ maxLength: 2000 }),
    capabilities: Type.Array(Type.String({ minLength: 1, maxLength: 512 }), { maxItems: 256 }),
  },
  { additionalProperties: false },
)

export const DomainPackSearchVocab = Type.Object(
  {
    synonyms: Type.Record(Type.String(), Type.Array(Type.String({ maxLength: 256 }), { maxItems: 256 })),
    stopWords: Type.Array(Type.String({ maxLength: 128 }), { maxItems: 4096 }),
  },
  { additionalProperties: false },
)

/** A domain pack as written in a JSON file or built in (closed: unknown members are refused). */
export const DomainPack = Type.Object(
  {
    id: Type.String({ pattern: '^[a-z][a-z0-9_-]{0,63}$' }),
    version: Type.String({ pattern: '^[0-9]+\\.[0-9]+\\.[0-9]+(?:[-+][0-9A-Za-z.-]+)?$' }),
    label: Type.String({ minLength: 1, maxLength: 200 }),
    contextTypes: Type.Array(DomainPackContextType, { maxItems: 1024 }),
    agentTemplates: Type.Optional(Type.Array(DomainPackAgentTemplate, { maxItems: 256 })),
    searchVocab: Type.Optional(DomainPackSearchVocab),
  },
  { additionalProperties: false },
)
export type DomainPack = Static<typeof DomainPack>

/** The `GET /domain-packs` view of one pack (product spec "Domain pack" fields). */
export interface DomainPackSummary {
  id: string
  version: string
  label: string
  contextTypes: Array<{ contextType: string; requiredFields: string[]; defaultVisibility: string }>
}

/** Raised at boot when `DOMAIN_PACKS` names an unknown pack, a file is unreadable or invalid, or packs clash. */
export class DomainPackError extends Error {
  override readonly name = 'DomainPackError'
}

/** The registered packs of one instance and the ingest gate they define. Immutable after boot. */
export interface DomainPackRegistry {
  /** Registered packs in `DOMAIN_PACKS` order. */
  readonly packs: readonly DomainPack[]
  /**
   * Ingest gate (product spec "Ingest"). True when no pack is registered, when `contextType` is absent (the gate only
   * applies to events carrying one), when it is a base protocol type, or when a registered pack declares it.
   * @param contextType attacker-controlled: the ingest body's `context_type`.
   */
  isContextTypeAccepted(contextType: string | null | undefined): boolean
  /** The `GET /domain-packs` body. */
  describe(): { packs: DomainPackSummary[] }
}

/** Builds the registry over already-validated packs. Throws DomainPackError on duplicate ids or types. */
export function createDomainPackRegistry(packs: readonly DomainPack[]): DomainPackRegistry {
  const declared = new Map<string, string>()
  const ids = new Set<string>()
  for (const pack of packs) {
    if (ids.has(pack.id)) throw new DomainPackError(`domain pack "${pack.id}" is registered twice`)
    ids.add(pack.id)
    for (const { contextType } of pack.contextTypes) {
      const owner = declared.get(contextType)
      if (owner !== undefined) {
        throw new DomainPackError(`context type "${contextType}" is declared by both "${owner}" and "${pack.id}"`)
      }
      if (BASE_CONTEXT_TYPES.has(contextType)) {
        throw new DomainPackError(`domain pack "${pack.id}" redeclares the base context type "${contextType}"`)
      }
      declared.set(contextType, pack.id)
    }
  }
  const frozen = Object.freeze(packs.map((pack) => structuredClone(pack)))
  const summary = {
    packs: frozen.map((pack) => ({
      id: pack.id,
      version: pack.version,
      label: pack.label,
      contextTypes: pack.contextTypes.map((t) => ({
        contextType: t.contextType,
        requiredFields: [...t.requiredFields],
        defaultVisibility: t.defaultVisibility,
      })),
    })),
  }
  const isGateActive = frozen.length > 0
  return {
    packs: frozen,
    isContextTypeAccepted(contextType) {
      if (!isGateActive || contextType === null || contextType === undefined) return true
      return BASE_CONTEXT_TYPES.has(contextType) || declared.has(contextType)
    },
    describe: () => structuredClone(summary),
  }
}

/** Options of {@link loadDomainPacks}. */
export interface LoadDomainPacksOptions {
  /** Reads a pack file as UTF-8 text; default `fs.readFileSync`. Injected so tests need no files. */
  readFile?: (path: string) => string
  /** Base directory for relative file paths; default the process working directory. */
  baseDir?: string
}

/**
 * Resolves the `DOMAIN_PACKS` setting (the raw comma-separated text, or the config's parsed list) whose entries are
 * built-in pack ids (`finance`) or paths of JSON pack files (an entry containing `/` or ending in `.json`). Empty entries are ignored.
 *
 * @throws DomainPackError naming the entry when an id is unknown, a file is unreadable, not JSON or fails the
 *   closed pack schema, or when two packs share an id or a context type.
 */
export function loadDomainPacks(
  setting: string | readonly string[],
  options: LoadDomainPacksOptions = {},
): DomainPackRegistry {
  const readFile = options.readFile ?? ((path: string) => readFileSync(path, 'utf8'))
  const packs: DomainPack[] = []
  for (const raw of typeof setting === 'string' ? setting.split(',') : setting) {
    const entry = raw.trim()
    if (entry === '') continue
    if (entry.includes('/') || entry.endsWith('.json')) {
      packs.push(readDomainPackFile(resolve(options.baseDir ?? process.cwd(), entry), readFile))
      continue
    }
    const builtIn = BUILT_IN_DOMAIN_PACKS.get(entry)
    if (!builtIn) {
      const known = [...BUILT_IN_DOMAIN_PACKS.keys()].join(', ')
      throw new DomainPackError(
        `DOMAIN_PACKS: unknown pack "${entry}" (built-in packs: ${known}; or give a .json path)`,
      )
    }
    packs.push(builtIn)
  }
  return createDomainPackRegistry(packs)
}

/** Parses and validates one pack file. */
function readDomainPackFile(path: string, readFile: (path: string) => string): DomainPack {
  let text: string
  try {
    text = readFile(path)
  } catch (cause) {
    throw new DomainPackError(`DOMAIN_PACKS: cannot read pack file ${path}`, { cause })
  }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch (cause) {
    throw new DomainPackError(`DOMAIN_PACKS: pack file ${path} is not valid JSON`, { cause })
  }
  return validateDomainPack(value, path)
}

/**
 * Checks `value` against the closed {@link DomainPack} schema.
 * @throws DomainPackError listing every failing path, prefixed with `source`.
 */
export function validateDomainPack(value: unknown, source: string): DomainPack {
  const { Value } = typeBoxValue()
  if (Value.Check(DomainPack, value)) return value
  const problems = Value.Errors(DomainPack, value)
    .slice(0, 10)
    .map((e) => `${e.instancePath || '/'}: ${e.message}`)
  throw new DomainPackError(`DOMAIN_PACKS: invalid pack in ${source}: ${problems.join('; ')}`)
}
