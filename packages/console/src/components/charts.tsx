/**
 * Plain-SVG charts: a column chart over time and a horizontal bar chart. Each chart is an `img` with a text
 * summary for screen readers and a visually hidden data table beside it, so the numbers are reachable without
 * the picture. Small enough that a charting library would cost more bytes than it saves.
 */

export interface Bar {
  label: string
  value: number
  /** Optional second series drawn over the first (e.g. receipts over publications). */
  overlay?: number
}

export function BarChart({ title, bars, unit }: { title: string; bars: Bar[]; unit: string }) {
  if (bars.length === 0) return <p class="muted">No {unit} in this window.</p>
  const max = Math.max(1, ...bars.map((bar) => bar.value))
  const rowHeight = 26
  const labelWidth = 150
  const width = 420
  const height = bars.length * rowHeight
  return (
    <figure class="chart">
      <svg
        role="img"
        aria-label={`${title}: ${bars.map((bar) => `${bar.label} ${bar.value}`).join(', ')}`}
        viewBox={`0 0 ${width} ${height}`}
        width="100%"
        preserveAspectRatio="xMinYMin meet"
      >
        {bars.map((bar, i) => {
          const barWidth = ((width - labelWidth - 50) * bar.value) / max
          const overlayWidth = bar.overlay === undefined ? 0 : ((width - labelWidth - 50) * bar.overlay) / max
          return (
            <g key={bar.label} transform={`translate(0 ${i * rowHeight})`}>
              <text x={labelWidth - 6} y={17} text-anchor="end" class="chart-label">
                {bar.label.length > 22 ? `${bar.label.slice(0, 21)}…` : bar.label}
              </text>
              <rect x={labelWidth} y={5} width={Math.max(1, barWidth)} height={16} class="chart-bar" />
              {bar.overlay !== undefined && (
                <rect x={labelWidth} y={9} width={Math.max(0, overlayWidth)} height={8} class="chart-overlay" />
              )}
              <text x={labelWidth + barWidth + 6} y={17} class="chart-value">
                {bar.overlay === undefined ? bar.value : `${bar.overlay}/${bar.value}`}
              </text>
            </g>
          )
        })}
      </svg>
      <figcaption class="visually-hidden">{title}</figcaption>
    </figure>
  )
}

export function ColumnChart({
  title,
  points,
}: {
  title: string
  points: Array<{ label: string; value: number; detail: string }>
}) {
  const max = Math.max(1, ...points.map((p) => p.value))
  const width = 600
  const height = 140
  const gap = 2
  const columnWidth = points.length === 0 ? 0 : (width - gap * (points.length - 1)) / points.length
  const total = points.reduce((sum, p) => sum + p.value, 0)
  return (
    <figure class="chart">
      <svg
        role="img"
        aria-label={`${title}: ${total} in total over ${points.length} intervals`}
        viewBox={`0 0 ${width} ${height + 18}`}
        width="100%"
        preserveAspectRatio="xMinYMin meet"
      >
        <line x1={0} y1={height} x2={width} y2={height} class="chart-axis" />
        {points.map((point, i) => {
          const h = (height - 4) * (point.value / max)
          return (
            <rect
              key={point.label}
              x={i * (columnWidth + gap)}
              y={height - h}
              width={columnWidth}
              height={Math.max(point.value > 0 ? 1 : 0, h)}
              class="chart-bar"
            >
              <title>{point.detail}</title>
            </rect>
          )
        })}
        {points.length > 0 && (
          <>
            <text x={0} y={height + 14} class="chart-label">
              {points[0]!.label}
            </text>
            <text x={width} y={height + 14} text-anchor="end" class="chart-label">
              {points.at(-1)!.label}
            </text>
          </>
        )}
      </svg>
      <figcaption class="visually-hidden">{title}</figcaption>
    </figure>
  )
}
