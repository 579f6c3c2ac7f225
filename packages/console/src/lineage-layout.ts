/**
 * Layered layout of a run's lineage DAG for plain SVG: each context sits one layer right of its deepest parent
 * (longest path from a root), nodes within a layer keep publication order (`step`), and edges are straight lines
 * between layer columns. Deterministic: the same lineage always draws the same picture, and a newly published
 * context only appends to a layer, so a live update never reshuffles what the operator is looking at. Edges
 * referring to contexts outside the run (parents published elsewhere) get a dashed "external" node in layer 0.
 */
import type { Lineage, LineageNode } from './api/types.js'

export const NODE_WIDTH = 200
export const NODE_HEIGHT = 48
const COLUMN_GAP = 72
const ROW_GAP = 20
const MARGIN = 16

export interface PlacedNode {
  ctxId: string
  x: number
  y: number
  layer: number
  /** null for an external parent (not published in this run). */
  node: LineageNode | null
}

export interface PlacedEdge {
  from: string
  to: string
  x1: number
  y1: number
  x2: number
  y2: number
}

export interface LineageLayout {
  nodes: PlacedNode[]
  edges: PlacedEdge[]
  width: number
  height: number
}

/** Computes the layout. Cycles (never valid lineage, but attacker-controlled data) are cut, not looped on. */
export function layoutLineage(lineage: Pick<Lineage, 'nodes' | 'edges'>): LineageLayout {
  const known = new Map(lineage.nodes.map((node) => [node.ctxId, node]))
  const order = [...lineage.nodes].sort((a, b) => a.step - b.step || a.ctxId.localeCompare(b.ctxId))
  const external = [...new Set(lineage.edges.map((e) => e.from).filter((id) => !known.has(id)))].sort()
  const parents = new Map<string, string[]>()
  for (const edge of lineage.edges) {
    if (!known.has(edge.to) || edge.from === edge.to) continue
    parents.set(edge.to, [...(parents.get(edge.to) ?? []), edge.from])
  }

  const layerOf = new Map<string, number>()
  for (const id of external) layerOf.set(id, 0)
  const visiting = new Set<string>()
  const depth = (id: string): number => {
    const cached = layerOf.get(id)
    if (cached !== undefined) return cached
    if (visiting.has(id)) return 0
    visiting.add(id)
    const parentLayers = (parents.get(id) ?? []).map((parent) => depth(parent) + 1)
    visiting.delete(id)
    const layer = Math.max(0, ...parentLayers)
    layerOf.set(id, layer)
    return layer
  }
  for (const node of order) depth(node.ctxId)

  const rows = new Map<number, number>()
  const place = (ctxId: string, node: LineageNode | null): PlacedNode => {
    const layer = layerOf.get(ctxId) ?? 0
    const row = rows.get(layer) ?? 0
    rows.set(layer, row + 1)
    return {
      ctxId,
      node,
      layer,
      x: MARGIN + layer * (NODE_WIDTH + COLUMN_GAP),
      y: MARGIN + row * (NODE_HEIGHT + ROW_GAP),
    }
  }
  const placed = [...external.map((id) => place(id, null)), ...order.map((node) => place(node.ctxId, node))]
  const at = new Map(placed.map((p) => [p.ctxId, p]))
  const edges: PlacedEdge[] = []
  for (const edge of lineage.edges) {
    const from = at.get(edge.from)
    const to = at.get(edge.to)
    if (from === undefined || to === undefined || from === to) continue
    edges.push({
      from: edge.from,
      to: edge.to,
      x1: from.x + NODE_WIDTH,
      y1: from.y + NODE_HEIGHT / 2,
      x2: to.x,
      y2: to.y + NODE_HEIGHT / 2,
    })
  }
  const layers = Math.max(0, ...placed.map((p) => p.layer)) + 1
  const maxRows = Math.max(1, ...rows.values())
  return {
    nodes: placed,
    edges,
    width: MARGIN * 2 + layers * NODE_WIDTH + (layers - 1) * COLUMN_GAP,
    height: MARGIN * 2 + maxRows * NODE_HEIGHT + (maxRows - 1) * ROW_GAP,
  }
}
