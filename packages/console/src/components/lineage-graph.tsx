/**
 * The run's lineage DAG in plain SVG, laid out by dagre (lineage-layout.ts). Each node shows its type and version,
 * the publishing agent's short name (the full DID in its tooltip), its step, and — once "Verify this run" has
 * verified it — its title, with the verdict symbol in the corner (verdict text in the tooltip). `derived_from` edges
 * are solid, supersession edges (one version of a lineage to the next) dashed. Pan by dragging the background, zoom
 * with the buttons (or Ctrl + wheel), or from a focused node with the arrow keys and + / -; Fit to see everything. Every node is a focusable button: Tab moves through
 * contexts in publication order, Enter or Space opens the inspector.
 */
import { useEffect, useMemo, useRef, useState } from 'preact/hooks'
import type { RunLineage } from '../api/types.js'
import { fitView, panView, type View, zoomView } from '../graph-view.js'
import { shortDid } from '../short-did.js'
import {
  layoutLineage,
  NODE_HEIGHT,
  NODE_PADDING,
  NODE_WIDTH,
  nodeHeading,
  type PlacedEdge,
} from '../lineage-layout.js'
import { type NodeResult, VERDICT_SYMBOL } from '../verify/node-verdict.js'

const MAX_HEIGHT = 560
/** Drawing units moved per arrow key press (the view moves opposite to a drag, so an arrow "drags" the other way). */
const KEY_PAN_PX = 60
const PAN_KEYS: Record<string, [number, number]> = {
  ArrowLeft: [1, 0],
  ArrowRight: [-1, 0],
  ArrowUp: [0, 1],
  ArrowDown: [0, -1],
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text
}

function edgePath(edge: PlacedEdge): string {
  const [first, ...rest] = edge.points
  if (first === undefined) return ''
  return `M${first.x},${first.y} ${rest.map((p) => `L${p.x},${p.y}`).join(' ')}`
}

export function LineageGraph({
  lineage,
  selected,
  onSelect,
  results,
}: {
  lineage: RunLineage
  selected: string | undefined
  onSelect(ctxId: string): void
  results?: ReadonlyMap<string, NodeResult>
}) {
  const layout = useMemo(() => layoutLineage(lineage), [lineage])
  const [view, setView] = useState<View>(() => fitView(layout.width, layout.height))
  const moved = useRef(false)
  const svg = useRef<SVGSVGElement>(null)
  const drag = useRef<{ x: number; y: number; pointer: number } | undefined>(undefined)
  // A live update re-fits the drawing unless the operator has panned or zoomed it.
  useEffect(() => {
    if (!moved.current) setView(fitView(layout.width, layout.height))
  }, [layout.width, layout.height])
  if (lineage.nodes.length === 0) return <p class="muted">No context has been published in this run yet.</p>

  const change = (next: View) => {
    moved.current = true
    setView(next)
  }
  const fit = () => {
    moved.current = false
    setView(fitView(layout.width, layout.height))
  }
  const height = Math.min(MAX_HEIGHT, Math.max(160, layout.height))
  const supersessions = layout.edges.filter((e) => e.kind === 'supersedes').length
  return (
    <div class="graph">
      <div class="graph-tools" role="toolbar" aria-label="Lineage graph view">
        <button type="button" class="secondary small" onClick={() => change(zoomView(view, 1.25))}>
          Zoom in
        </button>
        <button type="button" class="secondary small" onClick={() => change(zoomView(view, 0.8))}>
          Zoom out
        </button>
        <button type="button" class="secondary small" onClick={fit}>
          Fit
        </button>
        <span class="muted graph-legend">
          <span aria-hidden="true">──</span> derived from · <span aria-hidden="true">- -</span> superseded by
        </span>
      </div>
      <svg
        ref={svg}
        class="lineage"
        role="group"
        aria-label={`Lineage graph: ${lineage.nodes.length} contexts, ${layout.edges.length - supersessions} derivations, ${supersessions} supersessions`}
        width="100%"
        height={height}
        viewBox={`${view.x} ${view.y} ${view.width} ${view.height}`}
        preserveAspectRatio="xMidYMid meet"
        data-node-count={lineage.nodes.length}
        onPointerDown={(event: PointerEvent) => {
          if ((event.target as Element).closest('g.node') !== null) return
          drag.current = { x: event.clientX, y: event.clientY, pointer: event.pointerId }
          svg.current?.setPointerCapture(event.pointerId)
        }}
        onPointerMove={(event: PointerEvent) => {
          const from = drag.current
          if (from === undefined || from.pointer !== event.pointerId) return
          const rendered = svg.current?.getBoundingClientRect()
          // With `meet`, one screen pixel is the larger of the two axis ratios in drawing units.
          const scale = rendered
            ? Math.max(view.width / Math.max(1, rendered.width), view.height / Math.max(1, rendered.height))
            : 1
          change(panView(view, event.clientX - from.x, event.clientY - from.y, view.width / scale))
          drag.current = { ...from, x: event.clientX, y: event.clientY }
        }}
        onPointerUp={() => (drag.current = undefined)}
        onPointerCancel={() => (drag.current = undefined)}
        onKeyDown={(event: KeyboardEvent) => {
          // From any focused node: arrows pan, + and - zoom (the keyboard twin of drag and Ctrl + wheel).
          const step = PAN_KEYS[event.key]
          if (step !== undefined) {
            event.preventDefault()
            change(panView(view, step[0] * KEY_PAN_PX, step[1] * KEY_PAN_PX, view.width))
          } else if (event.key === '+' || event.key === '=' || event.key === '-') {
            event.preventDefault()
            change(zoomView(view, event.key === '-' ? 0.8 : 1.25))
          }
        }}
        onWheel={(event: WheelEvent) => {
          // Plain wheel scrolls the page as usual; Ctrl + wheel (and pinch) zooms the drawing.
          if (!event.ctrlKey) return
          event.preventDefault()
          change(zoomView(view, event.deltaY < 0 ? 1.15 : 1 / 1.15))
        }}
      >
        <defs>
          <marker id="arrow" viewBox="0 0 10 10" refX="10" refY="5" markerWidth="8" markerHeight="8" orient="auto">
            <path d="M0,0 L10,5 L0,10 z" class="edge-head" />
          </marker>
        </defs>
        {layout.edges.map((edge) => (
          <path
            key={`${edge.kind} ${edge.from}->${edge.to}`}
            class={`edge edge-${edge.kind}`}
            data-edge-kind={edge.kind}
            marker-end="url(#arrow)"
            d={edgePath(edge)}
          />
        ))}
        {layout.nodes.map((placed) => {
          const node = placed.node
          const result = results?.get(placed.ctxId)
          const id = placed.ctxId.split('/').at(-1) ?? placed.ctxId
          const mark = result === undefined ? undefined : VERDICT_SYMBOL[result.verdict]
          // Fitted to the room left of the verdict mark: SVG text is never clipped, so a long heading would run
          // under the mark. The tooltip carries it in full.
          const heading = nodeHeading(node, mark)
          const second = node === null ? clip(id, 30) : shortDid(node.agentId)
          const third =
            node === null
              ? 'outside this run'
              : result?.title !== undefined
                ? `step ${node.step} · ${clip(result.title, 22)}`
                : `step ${node.step}`
          // The tooltip is also the node's accessible name (SVG's <title>): it starts with the visible text
          // (WCAG 2.5.3), then the full ids and the verdict in words (the corner symbol alone is not the information).
          const tooltip = [
            `${heading.full}, ${second}, ${third}`,
            `${node === null ? 'Parent outside this run' : 'Context'} ${placed.ctxId}`,
            node === null ? '' : `published by ${node.agentId}`,
            result === undefined ? '' : `verification: ${result.verdict}${result.detail ? ` (${result.detail})` : ''}`,
          ]
            .filter(Boolean)
            .join('\n')
          const classes = [
            'node',
            node === null ? 'node-external' : '',
            node?.status === 'retracted' ? 'node-retracted' : '',
            node?.status === 'superseded' ? 'node-superseded' : '',
            selected === placed.ctxId ? 'node-selected' : '',
            result === undefined ? '' : `node-${result.verdict}`,
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
              data-verdict={result?.verdict}
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
              <title>{tooltip}</title>
              <rect width={NODE_WIDTH} height={NODE_HEIGHT} rx={6} />
              <text x={heading.x} y={18} class="node-title">
                {heading.text}
              </text>
              <text x={10} y={36} class="node-id">
                {second}
              </text>
              <text x={10} y={54} class="node-step">
                {third}
              </text>
              {result !== undefined && (
                <text
                  x={NODE_WIDTH - NODE_PADDING}
                  y={18}
                  text-anchor="end"
                  class={`node-verdict verdict-${result.verdict}`}
                >
                  {mark}
                </text>
              )}
            </g>
          )
        })}
      </svg>
    </div>
  )
}
