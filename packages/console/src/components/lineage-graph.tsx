/**
 * The run's lineage DAG in plain SVG (layout in lineage-layout.ts). Every node is a focusable button: Tab moves
 * through contexts in publication order, Enter or Space opens the inspector.
 */
import type { Lineage } from '../api/types.js'
import { layoutLineage, NODE_HEIGHT, NODE_WIDTH } from '../lineage-layout.js'

export function LineageGraph({
  lineage,
  selected,
  onSelect,
}: {
  lineage: Lineage
  selected: string | undefined
  onSelect(ctxId: string): void
}) {
  if (lineage.nodes.length === 0) return <p class="muted">No context has been published in this run yet.</p>
  const layout = layoutLineage(lineage)
  return (
    <div class="graph-scroll">
      <svg
        class="lineage"
        role="group"
        aria-label={`Lineage graph: ${lineage.nodes.length} contexts, ${lineage.edges.length} derivations`}
        width={layout.width}
        height={layout.height}
        viewBox={`0 0 ${layout.width} ${layout.height}`}
        data-node-count={lineage.nodes.length}
      >
        <defs>
          <marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="8" markerHeight="8" orient="auto">
            <path d="M0,0 L10,5 L0,10 z" class="edge-head" />
          </marker>
        </defs>
        {layout.edges.map((edge) => (
          <path
            key={`${edge.from}->${edge.to}`}
            class="edge"
            marker-end="url(#arrow)"
            d={`M${edge.x1},${edge.y1} C${edge.x1 + 36},${edge.y1} ${edge.x2 - 36},${edge.y2} ${edge.x2},${edge.y2}`}
          />
        ))}
        {layout.nodes.map((placed) => {
          const node = placed.node
          const id = placed.ctxId.split('/').at(-1) ?? placed.ctxId
          const status = node === null || node.status === 'active' ? '' : ` (${node.status})`
          const title = `${node === null ? 'external parent' : (node.contextType ?? 'context')}${status}`
          const shortId = id.length > 26 ? `${id.slice(0, 25)}…` : id
          // The accessible name is the visible text (WCAG 2.5.3); the full ids go in the description.
          const description = `${node === null ? 'Parent outside this run' : 'Context'} ${placed.ctxId}${node === null ? '' : `, published by ${node.agentId}`}`
          const classes = [
            'node',
            node === null ? 'node-external' : '',
            node?.status === 'retracted' ? 'node-retracted' : '',
            node?.status === 'superseded' ? 'node-superseded' : '',
            selected === placed.ctxId ? 'node-selected' : '',
          ]
          return (
            <g
              key={placed.ctxId}
              class={classes.filter(Boolean).join(' ')}
              transform={`translate(${placed.x} ${placed.y})`}
              role={node === null ? 'img' : 'button'}
              tabindex={node === null ? undefined : 0}
              aria-pressed={node === null ? undefined : selected === placed.ctxId}
              data-ctx-id={placed.ctxId}
              onClick={node === null ? undefined : () => onSelect(placed.ctxId)}
              onKeyDown={
                node === null
                  ? undefined
                  : (event: KeyboardEvent) => {
                      if (event.key === 'Enter' || event.key === ' ') {
                        event.preventDefault()
                        onSelect(placed.ctxId)
                      }
                    }
              }
            >
              <desc>{description}</desc>
              <rect width={NODE_WIDTH} height={NODE_HEIGHT} rx={6} />
              <text x={10} y={19} class="node-title">
                {title}
              </text>
              <text x={10} y={37} class="node-id">
                {shortId}
              </text>
            </g>
          )
        })}
      </svg>
    </div>
  )
}
