/** Service identity reported by GET /healthz (product spec "Versioning": the liveness response has `version`). */
import { readFileSync } from 'node:fs'

/** Service name in probes and logs. */
export const SERVICE_NAME = 'acdp-control-plane'

/** The package version, read once from package.json (works from src/ and dist/ alike). */
export const SERVICE_VERSION: string = (() => {
  const text = readFileSync(new URL('../../package.json', import.meta.url), 'utf8')
  const version = (JSON.parse(text) as { version?: unknown }).version
  return typeof version === 'string' ? version : '0.0.0'
})()
