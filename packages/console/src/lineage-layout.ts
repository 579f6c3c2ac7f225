/**
 * Layout of a run's lineage DAG with dagre (layered, left to right, crossings reduced), for plain SVG. Two kinds of
 * edge: `derived` from each context's `derived_from`, and `supersedes` from one version of a lineage to the next
 * version published in the same run (the lineage API's `lineageId`/`version`). Parents outside the run get an
 * "external" node. Cycles and self-edges (never valid lineage, but attacker-controlled data) are tolerated: dagre
 * breaks cycles itself, and self-edges are dropped.
 */
import { Graph, layout } from '@dagrejs/dagre'
import type { RunLineage, RunLineageNode } from './api/types.js'
import { textWidth, truncateToWidth } from './text-width.js'

export const NODE_WIDTH = 220
export const NODE_HEIGHT = 64
const MARGIN = 16
/** The node's inner padding left and right: where its text starts, where the verdict mark ends. */
export const NODE_PADDING = 10
/** Font sizes of the heading and of the verdict mark (styles.css `.node-title`, `.node-verdict`). */
export const HEADING_FONT_PX = 13
export const VERDICT_FONT_PX = 16
/** Room kept between the end of the heading and the verdict mark. */
const MARK_GAP = 6

export type EdgeKind = 'derived' | 'supersedes'

export interface PlacedNode {
  ctxId: string
  /** Top-left corner. */
  x: number
  y: number
  /** null for an external parent (not published in this run). */
  node: RunLineageNode | null
}

export interface PlacedEdge {
  from: string
  to: string
  kind: EdgeKind
  points: Array<{ x: number; y: number }>
}

export interface LineageLayout {
  nodes: PlacedNode[]
  edges: PlacedEdge[]
  width: number
  height: number
}

/** A node's first line as drawn: `text` starts at `x` and ends before `x + maxWidth`; `full` goes in its tooltip. */
export interface NodeHeading {
  text: string
  full: string
  x: number
  maxWidth: number
}

/** The left edge of the verdict mark `mark`, drawn right-aligned at the node's top-right corner. */
export function verdictMarkLeft(mark: string): number {
  return NODE_WIDTH - NODE_PADDING - textWidth(mark, VERDICT_FONT_PX)
}

/**
 * "type · vN (status)" for a context, "external parent" for a parent outside the run, fitted to the width left of
 * the verdict mark when there is one (`mark`), else to the node's inner width. A heading too long for the room
 * keeps its version and status and shortens the type with an ellipsis; only when even those do not fit is the
 * whole heading cut at the end.
 */
export function nodeHeading(node: RunLineageNode | null, mark?: string): NodeHeading {
  const right = mark === undefined ? NODE_WIDTH - NODE_PADDING : verdictMarkLeft(mark) - MARK_GAP
  const maxWidth = right - NODE_PADDING
  const fit = (text: string) => ({ text, x: NODE_PADDING, maxWidth })
  if (node === null)
    return { full: 'external parent', ...fit(truncateToWidth('external parent', maxWidth, HEADING_FONT_PX)) }
  const type = node.contextType ?? 'context'
  const status = node.status === 'active' ? '' : ` (${node.status})`
  const suffix = `${node.version === null ? '' : ` · v${node.version}`}${status}`
  const full = `${type}${suffix}`
  if (textWidth(full, HEADING_FONT_PX) <= maxWidth) return { full, ...fit(full) }
  const typeRoom = maxWidth - textWidth(suffix, HEADING_FONT_PX)
  const shortType = truncateToWidth(type, typeRoom, HEADING_FONT_PX)
  // At least one character of the type before its ellipsis, or the type is not recognisable at all.
  if (shortType.length >= 2) return { full, ...fit(`${shortType}${suffix}`) }
  return { full, ...fit(truncateToWidth(full, maxWidth, HEADING_FONT_PX)) }
}

/** Consecutive versions of each lineage among the run's nodes, older → newer. */
export function supersessionEdges(nodes: readonly RunLineageNode[]): Array<{ from: string; to: string }> {
  const byLineage = new Map<string, RunLineageNode[]>()
  for (const node of nodes) {
    if (node.lineageId === null || node.version === null) continue
    byLineage.set(node.lineageId, [...(byLineage.get(node.lineageId) ?? []), node])
  }
  const edges: Array<{ from: string; to: string }> = []
  for (const versions of byLineage.values()) {
    const ordered = [...versions].sort((a, b) => a.version! - b.version! || a.step - b.step)
    for (let i = 1; i < ordered.length; i++) edges.push({ from: ordered[i - 1]!.ctxId, to: ordered[i]!.ctxId })
  }
  return edges
}

export function layoutLineage(lineage: Pick<RunLineage, 'nodes' | 'edges'>): LineageLayout {
  const known = new Map(lineage.nodes.map((node) => [node.ctxId, node]))
  const order = [...lineage.nodes].sort((a, b) => a.step - b.step || a.ctxId.localeCompare(b.ctxId))
  const external = [...new Set(lineage.edges.map((e) => e.from).filter((id) => !known.has(id)))].sort()
  const wanted: Array<{ from: string; to: string; kind: EdgeKind }> = []
  const seen = new Set<string>()
  const add = (from: string, to: string, kind: EdgeKind) => {
    const key = `${kind} ${from} ${to}`
    if (from === to || !known.has(to) || seen.has(key)) return
    seen.add(key)
    wanted.push({ from, to, kind })
  }
  for (const edge of lineage.edges) add(edge.from, edge.to, 'derived')
  for (const edge of supersessionEdges(order)) add(edge.from, edge.to, 'supersedes')

  const graph = new Graph({ multigraph: true })
  graph.setGraph({ rankdir: 'LR', nodesep: 20, ranksep: 64, marginx: MARGIN, marginy: MARGIN })
  for (const id of [...external, ...order.map((n) => n.ctxId)])
    graph.setNode(id, { width: NODE_WIDTH, height: NODE_HEIGHT })
  for (const edge of wanted) graph.setEdge(edge.from, edge.to, {}, edge.kind)
  layout(graph)

  const place = (ctxId: string, node: RunLineageNode | null): PlacedNode => {
    const centre = graph.node(ctxId)
    return { ctxId, node, x: (centre.x ?? 0) - NODE_WIDTH / 2, y: (centre.y ?? 0) - NODE_HEIGHT / 2 }
  }
  const nodes = [...external.map((id) => place(id, null)), ...order.map((node) => place(node.ctxId, node))]
  const edges = wanted.map((edge) => ({
    ...edge,
    points: (graph.edge(edge.from, edge.to, edge.kind)?.points ?? []).map((p: { x: number; y: number }) => ({
      x: p.x,
      y: p.y,
    })),
  }))
  const label = graph.graph()
  return {
    nodes,
    edges,
    width: Math.max(label.width ?? 0, nodes.length === 0 ? 0 : NODE_WIDTH + 2 * MARGIN),
    height: Math.max(label.height ?? 0, nodes.length === 0 ? 0 : NODE_HEIGHT + 2 * MARGIN),
  }
}
