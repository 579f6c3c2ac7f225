/**
 * RFC-ACDP-0012 §6 / §7.4 log instantiation identifiers: `<registry did:web>/log/<instance>`.
 */
import { ProtocolError } from '../errors.js'
import { LOG_ID_PATTERN } from '../wire/log.js'

const LOG_ID = new RegExp(LOG_ID_PATTERN)
const INSTANCE = /^[a-z0-9-]{1,32}$/

/**
 * `"<registryDid>/log/<instance>"`, e.g. `did:web:registry.example.com/log/1`. A new instance is a loud,
 * explicit history reset (§7.4). Throws ProtocolError `invalid_structure` (`log_id_invalid`) when the result
 * would not match the §6 pattern (not did:web, instance outside `[a-z0-9-]{1,32}`).
 */
export function formatLogId(registryDid: string, instance: string): string {
  const logId = `${registryDid}/log/${instance}`
  if (!INSTANCE.test(instance) || !LOG_ID.test(logId)) {
    throw new ProtocolError('invalid_structure', 'log_id must be <did:web DID>/log/<[a-z0-9-]{1,32}>', {
      details: { reason: 'log_id_invalid' },
    })
  }
  return logId
}

/** The registry DID embedded in a log id (everything before `/log/`), or `undefined` if it is not a log id. */
export function registryDidOfLogId(logId: string): string | undefined {
  if (!LOG_ID.test(logId)) return undefined
  return logId.slice(0, logId.lastIndexOf('/log/'))
}
