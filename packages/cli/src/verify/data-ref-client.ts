/**
 * The outbound client `--fetch-data` fetches DataRef locations through (RFC-ACDP-0008 §4.9): the injected one
 * (tests, an allowlisted dev setup) or a strict one made on first use (public addresses only, HTTPS only).
 */
import { createOutboundClient, type OutboundClient } from '@acdp/protocol'
import type { CliIo } from '../command.js'

export interface DataRefClient {
  client: Pick<OutboundClient, 'request'>
  close(): Promise<void>
}

export function createDataRefClient(io: Pick<CliIo, 'outbound'>): DataRefClient {
  let created: OutboundClient | undefined
  return {
    client: {
      request: (url, init) => {
        created ??= io.outbound ?? createOutboundClient({ allowCidrs: [], userAgent: 'acdp-cli' })
        return created.request(url, init)
      },
    },
    async close() {
      // An injected client belongs to the caller.
      if (created !== io.outbound) await created?.close()
    },
  }
}
