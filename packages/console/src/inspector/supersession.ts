/**
 * A version's neighbours in its lineage: the previous version is the one the body says it supersedes (signed by
 * the producer); the next is the version of the lineage (as the registry serves it, GET
 * /registries/:authority/lineages/:lineageId) whose body supersedes this one. The registry's state carries no
 * successor, so without the lineage the next version is unknown — said as such, never guessed.
 */
import type { LineageVersion } from '../lineage/lineage-history.js'

export type Neighbour =
  { kind: 'version'; ctxId: string; version: number | null } | { kind: 'none' } | { kind: 'unknown'; why: string }

export interface Neighbours {
  previous: Neighbour
  next: Neighbour
}

export function neighbours(
  ctxId: string,
  supersedes: string | null,
  lineage: { versions: LineageVersion[] } | { problem: string },
): Neighbours {
  const versions = 'versions' in lineage ? lineage.versions : []
  const versionOf = (id: string) => versions.find((v) => v.ctxId === id)?.version ?? null
  const previous: Neighbour =
    supersedes === null ? { kind: 'none' } : { kind: 'version', ctxId: supersedes, version: versionOf(supersedes) }
  if ('problem' in lineage) return { previous, next: { kind: 'unknown', why: lineage.problem } }
  // The registry records one successor per version (a second supersession of it is refused): the first served is it.
  const successor = versions.find((v) => v.supersedes === ctxId)
  return {
    previous,
    next:
      successor === undefined
        ? { kind: 'none' }
        : { kind: 'version', ctxId: successor.ctxId, version: successor.version },
  }
}
