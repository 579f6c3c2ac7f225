/**
 * Flags several commands share, declared once so their spelling and help text never drift apart.
 */
import { usageError } from '../exit-codes.js'

/** `--registry`, `--control-plane`, `--data-dir`, `--json` as parseArgs option specs. */
export const TARGET_OPTIONS = {
  registry: { type: 'string' },
  'control-plane': { type: 'string' },
  'data-dir': { type: 'string' },
} as const

/** `--json` as a parseArgs option spec. */
export const JSON_OPTION = { json: { type: 'boolean' } } as const

/** Help lines for {@link TARGET_OPTIONS}. */
export const TARGET_HELP = `  --registry URL        registry base URL (default: ACDP_REGISTRY_URL, the running dev stack, http://127.0.0.1:3000)
  --control-plane URL   control plane base URL (default: ACDP_CONTROL_PLANE_URL, the running dev stack, http://127.0.0.1:3001)
  --data-dir DIR        dev-stack data directory to read URLs and dev keys from (default: ACDP_DATA_DIR or ./data)`

/**
 * Parses a non-negative integer flag.
 *
 * @throws CliError `usage` when the text is not a base-10 integer within [min, max].
 */
export function parseIntegerFlag(name: string, text: string | undefined, min: number, max: number): number | undefined {
  if (text === undefined) return undefined
  if (!/^(0|[1-9][0-9]{0,9})$/.test(text) || Number(text) < min || Number(text) > max) {
    throw usageError(`--${name} must be an integer from ${min} to ${max}`)
  }
  return Number(text)
}

/** Checks that a URL flag is an absolute http(s) URL. @throws CliError `usage` otherwise. */
export function checkBaseUrl(name: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined
  let parsed: URL | undefined
  try {
    parsed = new URL(value)
  } catch {
    parsed = undefined
  }
  if (parsed === undefined || (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')) {
    throw usageError(`--${name} must be an absolute http(s) URL such as http://127.0.0.1:3000`)
  }
  return value
}
