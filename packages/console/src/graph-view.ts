/** The DAG's visible window (an SVG viewBox): fit to the drawing, zoom about the centre, pan by screen pixels. */
export interface View {
  x: number
  y: number
  width: number
  height: number
}

export const MIN_ZOOM_WIDTH = 120
export const MAX_ZOOM_WIDTH = 20_000

/** The whole drawing, nothing cut. */
export function fitView(width: number, height: number): View {
  return { x: 0, y: 0, width: Math.max(1, width), height: Math.max(1, height) }
}

/** `factor` > 1 zooms in (a smaller window), about the window's centre; bounded both ways. */
export function zoomView(view: View, factor: number): View {
  const width = Math.min(MAX_ZOOM_WIDTH, Math.max(MIN_ZOOM_WIDTH, view.width / factor))
  const scale = width / view.width
  const height = view.height * scale
  return {
    x: view.x + (view.width - width) / 2,
    y: view.y + (view.height - height) / 2,
    width,
    height,
  }
}

/** Moves the window by a drag of (dx, dy) screen pixels on an element `screenWidth` pixels wide. */
export function panView(view: View, dx: number, dy: number, screenWidth: number): View {
  const unitsPerPixel = view.width / Math.max(1, screenWidth)
  return { ...view, x: view.x - dx * unitsPerPixel, y: view.y - dy * unitsPerPixel }
}
