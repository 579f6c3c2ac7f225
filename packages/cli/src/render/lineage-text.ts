/**
 * The control plane's run lineage graph (control-plane.md "Lineage graph") rendered as text: one line per
 * context in step order, each naming the steps it was derived from, then a count line. Rendering only; the
 * graph comes from GET /runs/:runId/lineage unchanged.
 */
import { abbreviate, renderTable, sanitizeTerminalText } from './text-table.js'

/** A node of the lineage graph as the control plane serves it. */
export interface LineageNode {
  ctxId: string
  agentId: string
  contextType: string
  visibility: string
  registryAuthority: string
  step: number
  retracted?: boolean
  /** `active`, `superseded` or `retracted`; absent from control planes that predate it (then `retracted` says). */
  status?: string
}

/** The lineage graph response: nodes in step order and `derived_from` edges (`from` informed `to`). */
export interface LineageGraph {
  runId: string
  nodes: LineageNode[]
  edges: Array<{ from: string; to: string }>
}

/**
 * Renders the graph. Parents are named by step number so the derivation reads at a glance; a parent outside
 * the run (an edge whose `from` is no node of it) is shown by its ctx_id. Agents are labelled `A`, `B`, … in
 * order of first appearance, with a legend, so three agents' long DIDs do not swamp the table.
 */
export function renderLineageGraph(graph: LineageGraph): string {
  const nodes = [...graph.nodes].sort((a, b) => a.step - b.step)
  const stepOf = new Map(nodes.map((node) => [node.ctxId, node.step]))
  const agentLabels = labelAgents(nodes)
  const parentsOf = new Map<string, Array<number | string>>()
  for (const edge of graph.edges) {
    const parents = parentsOf.get(edge.to) ?? []
    parents.push(stepOf.get(edge.from) ?? edge.from)
    parentsOf.set(edge.to, parents)
  }
  // Steps in ascending order first, then parents from outside the run by ctx_id.
  const byStepThenId = (a: number | string, b: number | string) =>
    typeof a === 'number' && typeof b === 'number'
      ? a - b
      : typeof a === 'number'
        ? -1
        : typeof b === 'number'
          ? 1
          : a.localeCompare(b)
  const table = renderTable(
    [
      { header: 'step', cell: (node: LineageNode) => String(node.step), alignRight: true },
      { header: 'ctx_id', cell: (node: LineageNode) => node.ctxId },
      { header: 'type', cell: (node: LineageNode) => node.contextType },
      { header: 'agent', cell: (node: LineageNode) => agentLabels.get(node.agentId) ?? '?' },
      {
        header: 'derived from',
        cell: (node: LineageNode) => {
          const parents = [...(parentsOf.get(node.ctxId) ?? [])].sort(byStepThenId)
          const text = parents.length === 0 ? '—' : parents.join(', ')
          const status = node.status ?? (node.retracted ? 'retracted' : 'active')
          return status === 'active' ? text : `${text} (${status})`
        },
      },
    ],
    nodes,
  )
  const legend = [...agentLabels].map(([did, label]) => `  ${label} = ${sanitizeTerminalText(abbreviate(did, 20, 8))}`)
  const summary = `run ${sanitizeTerminalText(graph.runId)}: ${nodes.length} context${nodes.length === 1 ? '' : 's'}, ${graph.edges.length} derived_from edge${graph.edges.length === 1 ? '' : 's'}`
  return [summary, table, ...(legend.length > 0 ? ['agents:', ...legend] : [])].join('\n')
}

function labelAgents(nodes: readonly LineageNode[]): Map<string, string> {
  const labels = new Map<string, string>()
  for (const node of nodes) {
    if (!labels.has(node.agentId)) labels.set(node.agentId, agentLabel(labels.size))
  }
  return labels
}

// A, B, …, Z, A1, B1, … — enough for any run a terminal can show.
function agentLabel(index: number): string {
  const letter = String.fromCharCode(65 + (index % 26))
  const round = Math.floor(index / 26)
  return round === 0 ? letter : `${letter}${round}`
}
