/**
 * A lineage as its registry serves it, relayed by the control plane (GET /registries/:authority/lineages/:lineageId):
 * every version's envelope and the `/current` answer with its head receipt. Shared by the lineage explorer and the
 * context inspector's supersession links.
 */
import type { RelayedLineage } from '@acdp/control-plane/response-schemas'
import type { ApiClient } from '../api/client.js'

export type { RelayedLineage }

export function registryBase(authority: string): string {
  return `/registries/${encodeURIComponent(authority)}`
}

export function fetchLineage(client: ApiClient, authority: string, lineageId: string): Promise<RelayedLineage> {
  return client.get<RelayedLineage>(`${registryBase(authority)}/lineages/${encodeURIComponent(lineageId)}`)
}
